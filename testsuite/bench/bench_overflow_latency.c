/*
 * bench_overflow_latency.c - time from a counter's overflow to the
 * handler: the sample's own timestamp (perf, CLOCK_MONOTONIC) against
 * clock_gettime(CLOCK_MONOTONIC) at handler entry.  Tally: PAPI_overflow
 * on perf::TASK-CLOCK every 100 us of CPU.  Baseline in the same run: a
 * bare perf sampling fd with the same settings and a minimal handler that
 * reads the newest sample's time from the ring.  Medians, p90 and ratio.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "papi.h"
#include "components/perf_event/pe_internal.h"

#define MAXS 20000
#define PERIOD 100000

static double lat[MAXS];
static volatile int nlat;
static struct perf_event_mmap_page *bare_pg;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void record(uint64_t sample, uint64_t now)
{
	if (sample && now >= sample && nlat < MAXS)
		lat[nlat++] = (double)(now - sample);
}

static void tally_handler(int es, void *pc, long long vec, void *ctx)
{
	uint64_t now = mono_ns();

	(void)es; (void)pc; (void)vec; (void)ctx;
	record(tly_pe_ovf_sample_ns(), now);
}

static void bare_handler(int sig, siginfo_t *si, void *uc)
{
	uint64_t now = mono_ns(), head = __atomic_load_n(&bare_pg->data_head, __ATOMIC_ACQUIRE), rec[4];
	const unsigned char *data = (const unsigned char *)bare_pg + bare_pg->data_offset;

	(void)sig; (void)si; (void)uc;
	if (head >= 32) { /* every record is 32 bytes: header, ip, pid/tid, time */
		for (int b = 0; b < 32; b++)
			((unsigned char *)rec)[b] = data[(head - 32 + b) % bare_pg->data_size];
		record(rec[3], now);
	}
	bare_pg->data_tail = head;
}

static void spin(long long ns)
{
	struct timespec ts;
	volatile uint64_t x = 1;
	long long end;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	end = ts.tv_sec * 1000000000LL + ts.tv_nsec + ns;
	do {
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005ULL + 1;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	} while (ts.tv_sec * 1000000000LL + ts.tv_nsec < end);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double summarize(const char *label)
{
	int n = nlat;
	double med;

	qsort(lat, (size_t)n, sizeof lat[0], cmp);
	med = n ? lat[n / 2] : 0;
	printf("%-28s %6d samples  median %8.0f ns  p90 %8.0f ns  p99 %8.0f ns\n", label, n, med,
	       n ? lat[n * 9 / 10] : 0, n ? lat[n * 99 / 100] : 0);
	nlat = 0;
	return med;
}

static int bare_run(void)
{
	struct perf_event_attr a;
	struct sigaction sa;
	struct f_owner_ex own = { F_OWNER_TID, (pid_t)syscall(SYS_gettid) };
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	int fd;

	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = PERIOD;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a.wakeup_events = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.disabled = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return 1;
	bare_pg = mmap(NULL, 9 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = bare_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGRTMIN + 6, &sa, NULL);
	fcntl(fd, F_SETFL, O_ASYNC);
	fcntl(fd, F_SETSIG, SIGRTMIN + 6);
	fcntl(fd, F_SETOWN_EX, &own);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	spin(300000000LL);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	munmap(bare_pg, 9 * pg);
	close(fd);
	return 0;
}

int main(void)
{
	int es = PAPI_NULL, tc;
	double t, b;

	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT || PAPI_create_eventset(&es) ||
	    PAPI_event_name_to_code("perf::TASK-CLOCK", &tc) || PAPI_add_event(es, tc) ||
	    PAPI_overflow(es, tc, PERIOD, 0, tally_handler) || PAPI_start(es))
		return 1;
	spin(300000000LL);
	PAPI_stop(es, NULL);
	t = summarize("Tally PAPI_overflow");
	if (bare_run())
		return 1;
	b = summarize("bare perf fd + handler");
	printf("overflow-to-handler latency ratio (median, Tally / bare): %.3f\n", b > 0 ? t / b : 0);
	PAPI_shutdown();
	return 0;
}

/*
 * cpu_mhz.c - the CPU's clock rate measured with its cycle counter, for
 * systems that publish no frequency (no cpufreq, no "cpu MHz" line:
 * arm64 VMs and many boards give only BogoMIPS, which is the timer's
 * rate, not the CPU's).  Programs derive overflow thresholds from
 * PAPI_get_hardware_info's MHz (threshold = mhz * 20000 is common), so
 * 0 there turns into a refused threshold of 0.
 *
 * The clocks (cpu_clock.c) read the time base, not the CPU's cycles;
 * the cycle counter is the kernel's generic PERF_COUNT_HW_CPU_CYCLES,
 * opened here (services/perf_counter.h) once for a few milliseconds of
 * busy work: cycles counted over the time the counter actually ran
 * (time_running).
 */
#include "services/cpu_clock.h"

#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "services/perf_counter.h"

#define SPIN_NS 5000000LL

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int open_cycles(int exclude_kernel)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	a.disabled = 1;
	a.exclude_kernel = exclude_kernel ? 1 : 0;
	a.exclude_hv = 1;
	a.read_format = PERF_FORMAT_TOTAL_TIME_RUNNING;
	return tly_perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

double tly_cpu_mhz_measure(void)
{
	uint64_t r[2] = { 0, 0 }; /* count, time_running (ns) */
	volatile unsigned long spin = 0;
	long long end;
	int fd = open_cycles(0);

	if (fd < 0)
		fd = open_cycles(1); /* perf_event_paranoid 2: user cycles only */
	if (fd < 0)
		return 0.0;
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) == 0) {
		for (end = mono_ns() + SPIN_NS; mono_ns() < end;)
			for (int i = 0; i < 1000; i++)
				spin++;
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		if (read(fd, r, sizeof r) != (ssize_t)sizeof r)
			r[1] = 0;
	}
	close(fd);
	/* a counter that never ran (no PMU slot) or counted nothing */
	if (r[1] < SPIN_NS / 10 || r[0] == 0)
		return 0.0;
	return (double)r[0] * 1000.0 / (double)r[1];
}

/*
 * thread_read.c - the kernel's own accounting of one thread: its CPU
 * clock (the scheduler's run time, ns) and the page faults and context
 * switches getrusage(RUSAGE_THREAD) reports.  The kernel keeps these for
 * every thread whatever is measured, so reading them puts nothing on the
 * thread: unlike a perf event, no counter context is switched with it.
 */
#include "components/thread/thread_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

const struct tly_th_event tly_th_events[TLY_TH_NEV] = {
	[TLY_TH_CPU_TIME] = { "CPU-TIME", "ns",
			      "CPU time of the thread, user and kernel (its CPU clock, the scheduler's run time)" },
	[TLY_TH_PAGE_FAULTS] = { "PAGE-FAULTS", "count",
				 "Page faults of the thread, minor and major, in user and kernel mode (getrusage)" },
	[TLY_TH_MINOR_FAULTS] = { "MINOR-FAULTS", "count", "Page faults served without I/O (getrusage ru_minflt)" },
	[TLY_TH_MAJOR_FAULTS] = { "MAJOR-FAULTS", "count", "Page faults that needed I/O (getrusage ru_majflt)" },
	[TLY_TH_CONTEXT_SWITCHES] = { "CONTEXT-SWITCHES", "count",
				      "Context switches of the thread, voluntary and involuntary (getrusage)" },
	[TLY_TH_VOLUNTARY_SWITCHES] = { "VOLUNTARY-SWITCHES", "count",
					"The thread gave up the CPU: waited (getrusage ru_nvcsw)" },
	[TLY_TH_INVOLUNTARY_SWITCHES] = { "INVOLUNTARY-SWITCHES", "count",
					  "The thread was preempted (getrusage ru_nivcsw)" },
};

int tly_th_find(const char *name)
{
	for (int i = 0; i < TLY_TH_NEV; i++)
		if (!strcmp(name, tly_th_events[i].name))
			return i;
	return -1;
}

#define RU_MASK (~(1u << TLY_TH_CPU_TIME) & ((1u << TLY_TH_NEV) - 1))

static long long ts_ns(const struct timespec *ts)
{
	return (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

static void from_counts(long long minflt, long long majflt, long long nvcsw, long long nivcsw,
			long long v[TLY_TH_NEV])
{
	v[TLY_TH_PAGE_FAULTS] = minflt + majflt;
	v[TLY_TH_MINOR_FAULTS] = minflt;
	v[TLY_TH_MAJOR_FAULTS] = majflt;
	v[TLY_TH_CONTEXT_SWITCHES] = nvcsw + nivcsw;
	v[TLY_TH_VOLUNTARY_SWITCHES] = nvcsw;
	v[TLY_TH_INVOLUNTARY_SWITCHES] = nivcsw;
}

/* A /proc file of the thread into buf (NUL-terminated); -1 with errno. */
static int slurp(long tid, const char *what, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof path, "/proc/self/task/%ld/%s", tid, what);
	/* read-only, in procfs (no file made; nobody else's names) */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		if (errno == ENOENT)
			errno = ESRCH;
		return -1;
	}
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0) {
		errno = n < 0 ? errno : ESRCH;
		return -1;
	}
	buf[n] = '\0';
	return 0;
}

static long long field_after(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);

	return p ? strtoll(p + strlen(key), NULL, 10) : -1;
}

/* Another thread of this process: stat has its faults (fields 10 and 12,
 * counted from after the command name, which may hold spaces and
 * parentheses), status its switches. */
static int read_other(long tid, unsigned mask, long long v[TLY_TH_NEV])
{
	char buf[2048];
	long long minflt = 0, majflt = 0, nv = -1, niv = -1;
	const char *p;

	if (slurp(tid, "stat", buf, sizeof buf))
		return -1;
	p = strrchr(buf, ')');
	if (!p)
		return errno = EPROTO, -1;
	p++;
	for (int field = 3; field <= 12 && *p; field++) {
		char *end;
		long long x;

		while (*p == ' ')
			p++;
		x = strtoll(p, &end, 10);
		if (field == 10)
			minflt = x;
		if (field == 12)
			majflt = x;
		p = strchr(p, ' ');
		if (!p)
			return errno = EPROTO, -1;
	}
	if (mask & ((1u << TLY_TH_CONTEXT_SWITCHES) | (1u << TLY_TH_VOLUNTARY_SWITCHES) |
		    (1u << TLY_TH_INVOLUNTARY_SWITCHES))) {
		char st[4096];

		if (slurp(tid, "status", st, sizeof st))
			return -1;
		nv = field_after(st, "\nvoluntary_ctxt_switches:");
		niv = field_after(st, "\nnonvoluntary_ctxt_switches:");
		if (nv < 0 || niv < 0)
			return errno = EPROTO, -1;
	}
	from_counts(minflt, majflt, nv, niv, v);
	return 0;
}

int tly_th_read(long tid, unsigned mask, long long v[TLY_TH_NEV])
{
	struct timespec ts;

	if (mask & (1u << TLY_TH_CPU_TIME)) {
		/* a thread's CPU clock by its id, as glibc's pthread_getcpuclockid
		 * makes it: (~tid << 3) | per-thread | the scheduler's clock */
		clockid_t id = tid ? (clockid_t)((~(unsigned)tid << 3) | 4 | 2) : CLOCK_THREAD_CPUTIME_ID;

		if (clock_gettime(id, &ts)) {
			if (errno == EINVAL)
				errno = ESRCH;
			return -1;
		}
		v[TLY_TH_CPU_TIME] = ts_ns(&ts);
	}
	if (!(mask & RU_MASK))
		return 0;
	if (tid)
		return read_other(tid, mask, v);
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return -1;
	from_counts(ru.ru_minflt, ru.ru_majflt, ru.ru_nvcsw, ru.ru_nivcsw, v);
	return 0;
}

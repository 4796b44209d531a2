/* region_time_app.c - user regions whose true times the program takes
 * itself (test region_time_only): VISITS visits of "spin" (about 20 ms of
 * CPU each) and of "nap" (a 15 ms sleep).  For each region it writes to
 * truth.txt the summed wall time inside the region (from begin's return to
 * end's call: a lower bound of what Tally may report), the summed wall time
 * around the calls (an upper bound), the thread CPU time inside and the
 * thread's context switches inside (each may book up to TH_SWITCH_GAP_NS
 * of CPU time that its task-clock never sees: tharness.h). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdint.h>
#include <time.h>
#include <sys/resource.h>

#include "tally.h"

#define VISITS 5

static int64_t now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

struct truth {
	int64_t inner, outer, cpu, switches;
};

/* The thread's context switches so far (voluntary and not). */
static int64_t switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

static volatile double sink;

static void body(int spin)
{
	if (spin) {
		int64_t end = now(CLOCK_THREAD_CPUTIME_ID) + 20000000;
		double s = 0;

		while (now(CLOCK_THREAD_CPUTIME_ID) < end)
			for (int i = 0; i < 1000; i++)
				s += i * 0.5;
		sink = s;
	} else {
		struct timespec d = { 0, 15000000 };

		nanosleep(&d, NULL);
	}
}

static void visit(const char *name, int spin, struct truth *t)
{
	int64_t o0 = now(CLOCK_MONOTONIC), i0, i1, c0, c1, w0, w1;

	tally_region_begin(name);
	w0 = switches();
	i0 = now(CLOCK_MONOTONIC);
	c0 = now(CLOCK_THREAD_CPUTIME_ID);
	body(spin);
	c1 = now(CLOCK_THREAD_CPUTIME_ID);
	i1 = now(CLOCK_MONOTONIC);
	w1 = switches();
	tally_region_end(name);
	t->switches += w1 - w0;
	t->outer += now(CLOCK_MONOTONIC) - o0;
	t->inner += i1 - i0;
	t->cpu += c1 - c0;
}

int main(void)
{
	struct truth spin = { 0 }, nap = { 0 };
	FILE *f;

	for (int v = 0; v < VISITS; v++) {
		visit("spin", 1, &spin);
		visit("nap", 0, &nap);
	}
	f = fopen("truth.txt", "w");
	if (!f)
		return 1;
	fprintf(f, "spin %d %lld %lld %lld %lld\n", VISITS, (long long)spin.inner, (long long)spin.outer,
		(long long)spin.cpu, (long long)spin.switches);
	fprintf(f, "nap %d %lld %lld %lld %lld\n", VISITS, (long long)nap.inner, (long long)nap.outer,
		(long long)nap.cpu, (long long)nap.switches);
	return fclose(f) ? 1 : 0;
}

/* test_rt_clock.c - the runtime's clock (wrappers/runtime/rt_clock.c)
 * against CLOCK_MONOTONIC, through the switch from clock_gettime to the
 * CPU's counter: every reading lies between the CLOCK_MONOTONIC readings
 * taken just before and after it (a slack of 20 us plus 1e-4 of the time
 * since start for the measured rate), readings never go back, and where
 * the TSC is the kernel's clocksource the counter is in use 50 ms after
 * start-up, from two threads reading at once. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "runtime/rt_clock.h"
#include "tharness.h"

#define RUN_NS 150000000LL

static int64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

struct result {
	int64_t start;
	long reads, outside, back;
	int64_t worst;
};

static void *reader(void *arg)
{
	struct result *r = arg;
	int64_t last = 0, end = r->start + RUN_NS;

	/* the window, and at least 1,001 readings: under load a thread may
	 * first run after the window ended (issue 46: 0 readings at load 30) */
	for (int64_t b = mono(); b < end || r->reads <= 1000; b = mono()) {
		int64_t t = tly_rt_now(), a = mono();
		int64_t slack = 20000 + (a - r->start) / 10000;
		int64_t off = t < b ? b - t : t > a ? t - a : 0;

		r->reads++;
		if (off > slack)
			r->outside++;
		if (off > r->worst)
			r->worst = off;
		if (t < last)
			r->back++;
		last = t;
	}
	return NULL;
}

static int tsc_clocksource(void)
{
	char s[32] = "";
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");

	if (f) {
		if (!fgets(s, sizeof s, f))
			s[0] = 0;
		fclose(f);
	}
	return !strncmp(s, "tsc\n", 4);
}

int main(void)
{
	struct result r[2] = { { .start = mono() }, { .start = 0 } };
	pthread_t th;

	r[1].start = r[0].start;
	tly_rt_clock_init();
	TH_CHECK(pthread_create(&th, NULL, reader, &r[1]) == 0);
	reader(&r[0]);
	pthread_join(th, NULL);
	for (int i = 0; i < 2; i++) {
		printf("thread %d: %ld readings, worst distance from CLOCK_MONOTONIC %lld ns, %ld outside, "
		       "%ld backwards\n", i, r[i].reads, (long long)r[i].worst, r[i].outside, r[i].back);
		TH_CHECK(r[i].reads > 1000);
		TH_CHECK(r[i].outside == 0);
		TH_CHECK(r[i].back == 0);
	}
#if defined(__x86_64__)
	if (tsc_clocksource())
		TH_CHECK(tly_rt_clock_is_fast());
	printf("counter in use: %d (TSC the clocksource: %d)\n", tly_rt_clock_is_fast(), tsc_clocksource());
#endif
	return th_done();
}

/*
 * test_eventset_ids.c - event-set ids are handed out lowest-free-first in
 * O(log n): 100,000 PAPI_create_eventset calls within 0.2 s of CPU time
 * (process CPU time: the shared test machine runs other jobs, wall time is
 * printed too), and the ids are exactly 0..n-1, reused lowest first after
 * destruction.
 */
#include <papi.h>
#include <stdlib.h>
#include <time.h>

#include "tharness.h"

#define N 100000

static double clock_s(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double now(void)
{
	return clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

int main(void)
{
	static int ids[N];
	double t0, dt, w0;
	int ok = 1, id;

	TH_EQ(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
	w0 = clock_s(CLOCK_MONOTONIC);
	t0 = now();
	for (int i = 0; i < N; i++) {
		ids[i] = PAPI_NULL;
		if (PAPI_create_eventset(&ids[i]) != PAPI_OK || ids[i] != i)
			ok = 0;
	}
	dt = now() - t0;
	printf("%d PAPI_create_eventset calls: %.3f s CPU, %.3f s wall\n", N, dt, clock_s(CLOCK_MONOTONIC) - w0);
	TH_CHECK(ok);
	TH_CHECK(dt <= 0.2);
	/* lowest free id first after destroying a few in any order */
	TH_EQ(PAPI_destroy_eventset(&ids[500]), PAPI_OK);
	TH_EQ(PAPI_destroy_eventset(&ids[7]), PAPI_OK);
	TH_EQ(PAPI_destroy_eventset(&ids[N - 1]), PAPI_OK);
	id = PAPI_NULL;
	TH_EQ(PAPI_create_eventset(&id), PAPI_OK);
	TH_EQ(id, 7);
	id = PAPI_NULL;
	TH_EQ(PAPI_create_eventset(&id), PAPI_OK);
	TH_EQ(id, 500);
	id = PAPI_NULL;
	TH_EQ(PAPI_create_eventset(&id), PAPI_OK);
	TH_EQ(id, N - 1);
	t0 = now();
	for (int i = 0; i < N; i++) {
		int e = i;

		if (PAPI_destroy_eventset(&e) != PAPI_OK)
			ok = 0;
	}
	dt = now() - t0;
	printf("%d PAPI_destroy_eventset calls: %.3f s CPU\n", N, dt);
	TH_CHECK(ok);
	TH_CHECK(dt <= 0.2);
	PAPI_shutdown();
	return th_done();
}

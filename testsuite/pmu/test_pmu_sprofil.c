/*
 * test_pmu_sprofil.c - PAPI_sprofil with several regions and the
 * catch-all last region, PAPI_profil with one.
 *
 * PAPI_TOT_CYC overflows every 10^5 cycles over pmu_loop(3*10^7)
 * (6*10^7 cycles, plus the cycles of the signal handlers, which the
 * counter also sees): cycles / 10^5 samples, one more or less.  Regions:
 *   A  pmu_loop's text (one 16-bit bucket per 2 bytes)
 *   B  a function that never runs
 *   Z  the catch-all: last, pr_off 0, pr_scale 0x2, pr_size 1; one bucket
 *      counts every sample outside the other regions (PAPI's overflow bin)
 * With A, B, Z: A holds nearly all samples, B none, A + Z all of them.
 * With B, Z only: Z holds all of them.  PAPI_profil on A alone: A holds
 * all but the few outside the loop.  Profiling is then turned off
 * (threshold 0) and set again on the same set.
 */
#include <string.h>

#include "pmu_util.h"

#define THRESHOLD 100000
#define LOOP_N 30000000ull
#define TEXT 64 /* bytes of pmu_loop covered */

static PMU_LOOP_ATTR int never_runs(int x)
{
	return x * 3 + 1;
}

static unsigned short buf_a[TEXT / 2], buf_b[TEXT / 2], buf_z[4];

static long long sum(const unsigned short *b, size_t n)
{
	long long s = 0;

	for (size_t i = 0; i < n; i++)
		s += b[i];
	return s;
}

static void region(PAPI_sprofil_t *r, void *buf, unsigned size, void *text, unsigned scale)
{
	r->pr_base = buf;
	r->pr_size = size;
	r->pr_off = (vptr_t)text;
	r->pr_scale = scale;
}

/* profile with `n` regions of r (sprofil) or buffer A alone (profil);
 * returns the samples expected: the cycles counted (the handler's
 * included) over the threshold */
static long long run(int set, PAPI_sprofil_t *r, int n, int use_profil)
{
	long long v[1];

	memset(buf_a, 0, sizeof buf_a);
	memset(buf_b, 0, sizeof buf_b);
	memset(buf_z, 0, sizeof buf_z);
	if (use_profil)
		TH_EQ(PAPI_profil(buf_a, sizeof buf_a, (vptr_t)pmu_loop, 0x10000, set, PAPI_TOT_CYC, THRESHOLD,
		                  PAPI_PROFIL_POSIX), PAPI_OK);
	else
		TH_EQ(PAPI_sprofil(r, n, set, PAPI_TOT_CYC, THRESHOLD, PAPI_PROFIL_POSIX), PAPI_OK);
	TH_EQ(pmu_measure(set, LOOP_N, v), PAPI_OK);
	TH_EQ(PAPI_sprofil(r, n, set, PAPI_TOT_CYC, 0, PAPI_PROFIL_POSIX), PAPI_OK); /* off */
	printf("%d region(s)%s: A %lld, B %lld, Z %u; cycles %lld\n", n, use_profil ? " (PAPI_profil)" : "",
	       sum(buf_a, TEXT / 2), sum(buf_b, TEXT / 2), buf_z[0], v[0]);
	return v[0] / THRESHOLD;
}

int main(void)
{
	int set = PAPI_NULL;
	PAPI_sprofil_t r[3];
	long long a, z, want;

	pmu_require();
	TH_EQ(PAPI_create_eventset(&set), PAPI_OK);
	TH_EQ(PAPI_add_event(set, PAPI_TOT_CYC), PAPI_OK);
	TH_CHECK(never_runs(1) == 4 || 1); /* referenced, never profiled */
	region(&r[0], buf_a, sizeof buf_a, (void *)pmu_loop, 0x10000);
	region(&r[1], buf_b, sizeof buf_b, (void *)never_runs, 0x10000);
	region(&r[2], buf_z, 1, NULL, 0x2);

	want = run(set, r, 3, 0);
	a = sum(buf_a, TEXT / 2);
	z = buf_z[0];
	TH_CHECK(want >= 600 && want < 620);
	TH_CHECK(a + z >= want - 1 && a + z <= want + 1);
	TH_CHECK(a >= want - 10);
	TH_EQ(sum(buf_b, TEXT / 2), 0);

	want = run(set, &r[1], 2, 0); /* B and the catch-all */
	TH_EQ(sum(buf_b, TEXT / 2), 0);
	TH_CHECK(buf_z[0] >= want - 1 && buf_z[0] <= want + 1);
	TH_EQ(buf_z[1], 0); /* one bucket, nothing beyond it */

	want = run(set, r, 1, 1); /* PAPI_profil on A, after turning profiling off */
	a = sum(buf_a, TEXT / 2);
	TH_CHECK(a >= want - 10 && a <= want + 1);
	TH_EQ(buf_z[0], 0);

	/* a region of size 1 that is not last, or not pr_off 0 / scale 0x2,
	 * is no catch-all: refused */
	PAPI_sprofil_t bad[2];

	region(&bad[0], buf_z, 1, NULL, 0x2);
	region(&bad[1], buf_a, sizeof buf_a, (void *)pmu_loop, 0x10000);
	TH_EQ(PAPI_sprofil(bad, 2, set, PAPI_TOT_CYC, THRESHOLD, PAPI_PROFIL_POSIX), PAPI_EINVAL);
	region(&bad[1], buf_z, 1, (void *)pmu_loop, 0x2);
	TH_EQ(PAPI_sprofil(bad + 1, 1, set, PAPI_TOT_CYC, THRESHOLD, PAPI_PROFIL_POSIX), PAPI_EINVAL);
	PAPI_cleanup_eventset(set);
	TH_EQ(PAPI_destroy_eventset(&set), PAPI_OK);
	PAPI_shutdown();
	return th_done();
}

/* test_budget_sampled.c - which visits of a sampled region read its
 * counters (wrappers/regions/budget.h, tly_budget_reads):
 *  - about one visit in N (within 5 standard errors over 400,000 visits);
 *  - the same visits on every thread for the same region and N (a team's
 *    threads then wait at the barrier for one read, not one each);
 *  - with N differing, the larger N's visits among the smaller's;
 *  - another region (another key) reads on other visits;
 *  - no step with a period of the program's own: for visits i % 4 == j,
 *    each residue read about 1 in N too;
 *  - only a sampled region samples: in full 1, counters off 0.
 * Self-test: per-thread draws (a different key per thread, what each
 * thread's own random gaps amounted to before) fail the "same visits"
 * check. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "regions/budget.h"
#include "tharness.h"

#define VISITS 400000

static struct tly_rt_degrade sampled(uint32_t key, int32_t n)
{
	struct tly_rt_degrade d;

	memset(&d, 0, sizeof d);
	d.step = TLY_DEG_SAMPLED;
	d.sample_n = n;
	d.key = key;
	return d;
}

/* Visits read by both, by a only, by b only. */
static void compare(const struct tly_rt_degrade *a, const struct tly_rt_degrade *b, long *both, long *aonly,
		    long *bonly)
{
	*both = *aonly = *bonly = 0;
	for (int64_t v = 0; v < VISITS; v++) {
		int x = tly_budget_reads(a, v) == 2, y = tly_budget_reads(b, v) == 2;

		*both += x && y;
		*aonly += x && !y;
		*bonly += !x && y;
	}
}

static int near_rate(long got, long of, int32_t n)
{
	double p = 1.0 / n, want = p * (double)of, se = sqrt((double)of * p * (1 - p));

	return fabs((double)got - want) <= 5 * se;
}

int main(void)
{
	const uint32_t key = 0x12345678u;
	struct tly_rt_degrade t0 = sampled(key, 8), t1 = sampled(key, 8), wide = sampled(key, 4),
			      other = sampled(key ^ 0x9e3779b9u, 8), full, off;
	long both, a, b, res[4] = { 0, 0, 0, 0 };

	compare(&t0, &t1, &both, &a, &b);
	printf("same region, N 8 on two threads: %ld visits read by both, %ld and %ld by one\n", both, a, b);
	TH_CHECK(a == 0 && b == 0);
	TH_CHECK(near_rate(both, VISITS, 8));

	compare(&t0, &wide, &both, &a, &b);
	printf("N 8 against N 4: %ld by both, %ld by N 8 only, %ld by N 4 only\n", both, a, b);
	TH_CHECK(a == 0);
	TH_CHECK(near_rate(both + b, VISITS, 4));

	compare(&t0, &other, &both, &a, &b);
	printf("another region, N 8: %ld by both (independent: ~%d)\n", both, VISITS / 64);
	TH_CHECK(near_rate(both, VISITS, 64));

	for (int64_t v = 0; v < VISITS; v++)
		res[v % 4] += tly_budget_reads(&t0, v) == 2;
	for (int j = 0; j < 4; j++) {
		printf("visits %% 4 == %d: %ld read of %d\n", j, res[j], VISITS / 4);
		TH_CHECK(near_rate(res[j], VISITS / 4, 8));
	}

	memset(&full, 0, sizeof full);
	off = full;
	off.step = TLY_DEG_COUNTERS_OFF;
	TH_EQ(tly_budget_reads(NULL, 7), 1);
	TH_EQ(tly_budget_reads(&off, 7), 0);
	full.step = TLY_DEG_VISITS_ONLY;
	TH_EQ(tly_budget_reads(&full, 7), 0);

	/* self-test: what each thread drawing its own visits would give */
	{
		struct tly_rt_degrade own0 = sampled(1u, 8), own1 = sampled(2u, 8);

		compare(&own0, &own1, &both, &a, &b);
		printf("self-test, a draw per thread: %ld by both, %ld and %ld by one (caught: %s)\n", both, a, b,
		       a || b ? "yes" : "NO");
		TH_CHECK(a > 0 && b > 0);
	}
	return th_done();
}

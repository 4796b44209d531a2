/*
 * test_pmu_exact.c - PAPI_TOT_INS and PAPI_TOT_CYC over loops of known
 * instruction count are exact, up to a constant for the measurement.
 *
 * The constant C (user instructions of PAPI_start's tail and PAPI_stop's
 * head, counted with the loop's single cbz) is measured with an empty
 * loop; it must be the same every time and small.  Then for each n the
 * count minus C is exactly 2n: one subs and one b.ne per iteration.
 * Under QEMU -icount shift=0 the cycle counter counts one per
 * instruction, so PAPI_TOT_CYC obeys the same rule with its own C.
 */
#include "pmu_util.h"

#define REPS 5
#define MAX_CONST 5000 /* instructions; Tally's own path is a few hundred */

static const struct {
	int line;
	uint64_t n;
} rows[] = {
	{ __LINE__, 1 },
	{ __LINE__, 1000 },
	{ __LINE__, 123457 },
	{ __LINE__, 10000000 },
};

/* C for each event: every empty measurement gives the same counts. */
static void measure_constant(int set, long long c[2])
{
	long long v[2];

	TH_EQ(pmu_measure(set, 0, c), PAPI_OK);
	for (int r = 1; r < REPS; r++) {
		TH_EQ(pmu_measure(set, 0, v), PAPI_OK);
		TH_EQ(v[0], c[0]);
		TH_EQ(v[1], c[1]);
	}
	printf("measurement constant: PAPI_TOT_INS %lld, PAPI_TOT_CYC %lld (loop's cbz included)\n", c[0], c[1]);
	TH_CHECK(c[0] > 0 && c[0] < MAX_CONST);
	TH_CHECK(c[1] > 0 && c[1] < MAX_CONST);
}

int main(void)
{
	int set = PAPI_NULL;
	long long c[2], v[2];

	pmu_require();
	TH_EQ(PAPI_create_eventset(&set), PAPI_OK);
	TH_EQ(PAPI_add_event(set, PAPI_TOT_INS), PAPI_OK);
	TH_EQ(PAPI_add_event(set, PAPI_TOT_CYC), PAPI_OK);
	pmu_measure(set, 1000, v); /* warm up: page faults, lazy binding */
	measure_constant(set, c);
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		th_at(rows[i].line);
		TH_EQ(pmu_measure(set, rows[i].n, v), PAPI_OK);
		printf("n=%-9llu PAPI_TOT_INS %lld  PAPI_TOT_CYC %lld  expected %lld + constant\n",
		       (unsigned long long)rows[i].n, v[0], v[1], 2 * (long long)rows[i].n);
		TH_EQ(v[0] - c[0], 2 * (long long)rows[i].n);
		TH_EQ(v[1] - c[1], 2 * (long long)rows[i].n);
	}
	th_at(0);
	TH_EQ(PAPI_cleanup_eventset(set), PAPI_OK);
	TH_EQ(PAPI_destroy_eventset(&set), PAPI_OK);
	PAPI_shutdown();
	return th_done();
}

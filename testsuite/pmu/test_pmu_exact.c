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
 *
 * With the argument "generic" (test pmu_exact_generic) the presets come
 * from the generic tier (TALLY_PRESETS_GENERIC=1: the kernel's generic
 * hardware events, as on a CPU no map describes): both must say so and
 * name perf:: natives, and the counts must be just as exact.
 */
#include <stdlib.h>
#include <string.h>

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

/* Both presets are mapped by the generic tier to perf:: natives. */
static void check_generic(void)
{
	static const int codes[2] = { PAPI_TOT_INS, PAPI_TOT_CYC };
	PAPI_event_info_t info;

	for (int i = 0; i < 2; i++) {
		TH_EQ(PAPI_get_event_info(codes[i], &info), PAPI_OK);
		printf("%s: %s = %s\n", info.symbol, info.name[0], info.note);
		TH_CHECK(strncmp(info.note, "generic:", 8) == 0);
		TH_EQ(info.count, 1u);
		TH_CHECK(strncmp(info.name[0], "perf::", 6) == 0);
	}
}

int main(int argc, char **argv)
{
	int set = PAPI_NULL, generic = argc > 1 && strcmp(argv[1], "generic") == 0;
	long long c[2], v[2];

	if (argc > 1 && !generic) {
		fprintf(stderr, "usage: %s [generic]\n", argv[0]);
		return 2;
	}
	if (generic)
		setenv("TALLY_PRESETS_GENERIC", "1", 1);
	pmu_require();
	if (generic)
		check_generic();
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

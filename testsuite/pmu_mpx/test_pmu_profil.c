/*
 * test_pmu_profil.c - PAPI_profil driven by hardware cycle overflow
 * (PAPI_TOT_CYC every 10^5 cycles) over the known loop pmu_loop, whose
 * address range comes from the ELF symbol table: for 16-, 32- and 64-bit
 * buckets, >= 90% of the hits fall in pmu_loop's buckets, and there are
 * about as many hits as thresholds in the loop (10%).
 */
#include <stdlib.h>

#include "pmu_util.h"
#include "sym_util.h"

#define THRESHOLD 100000
#define LOOP_N 20000000ull

static void row(int line, int bytes, int set, char *text, uintptr_t lo, uintptr_t hi)
{
	size_t nb = (size_t)(hi - (uintptr_t)text) / 2 + 64, size = nb * (size_t)bytes;
	void *buf = calloc(1, size);
	int flag = bytes == 2 ? PAPI_PROFIL_BUCKET_16 : bytes == 4 ? PAPI_PROFIL_BUCKET_32 : PAPI_PROFIL_BUCKET_64;
	unsigned long long all = 0, in = 0;
	long long v;

	th_at(line);
	TH_EQ(PAPI_profil(buf, (unsigned)size, (vptr_t)text, 0x10000, set, PAPI_TOT_CYC, THRESHOLD,
			  PAPI_PROFIL_POSIX | flag), PAPI_OK);
	TH_EQ(pmu_measure(set, LOOP_N, &v), PAPI_OK);
	TH_EQ(PAPI_profil(buf, (unsigned)size, (vptr_t)text, 0x10000, set, PAPI_TOT_CYC, 0, flag), PAPI_OK);
	for (size_t i = 0; i < nb; i++) {
		unsigned long long h = bytes == 2 ? ((uint16_t *)buf)[i] : bytes == 4 ? ((uint32_t *)buf)[i]
										     : ((uint64_t *)buf)[i];
		uintptr_t a = (uintptr_t)text + 2 * i;

		all += h;
		in += a >= lo && a < hi ? h : 0;
	}
	printf("%d-byte buckets: %llu hits, %llu in pmu_loop\n", bytes, all, in);
	TH_CHECK(in >= 0.9 * all);
	TH_NEAR(all, PMU_LOOP_INS(LOOP_N) / THRESHOLD, 0.10);
	free(buf);
	th_at(0);
}

int main(void)
{
	const PAPI_exe_info_t *exe;
	uintptr_t lo, hi;
	int set = PAPI_NULL;

	pmu_require();
	if (sym_range("pmu_loop", &lo, &hi))
		TH_FATAL("pmu_loop is not in this test's symbol table: the build stripped it, which the test's CMake never asks for");
	exe = PAPI_get_executable_info();
	TH_CHECK(exe != NULL);
	if (!exe)
		return th_done();
	TH_EQ(PAPI_create_eventset(&set), PAPI_OK);
	TH_EQ(PAPI_add_event(set, PAPI_TOT_CYC), PAPI_OK);
	struct { int line; int bytes; } rows[] = { { __LINE__, 2 }, { __LINE__, 4 }, { __LINE__, 8 } };
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		row(rows[i].line, rows[i].bytes, set, (char *)exe->address_info.text_start, lo, hi);
	PAPI_cleanup_eventset(set);
	PAPI_destroy_eventset(&set);
	PAPI_shutdown();
	return th_done();
}

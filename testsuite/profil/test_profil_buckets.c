/*
 * test_profil_buckets.c - the bucket arithmetic of PAPI_profil:
 * index = ((pc - offset) * scale) >> 17 against the number of buckets
 * (bytes / bucket size), and the flags: saturation without COMPRESS,
 * halving with COMPRESS, WEIGHTED weights, RANDOM dropping a quarter.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tharness.h"
#include "core/profil.h"

static void test_index(void)
{
	struct { int line; uintptr_t off; unsigned scale; unsigned size; int bytes; uintptr_t pc; long long want; } rows[] = {
		{ __LINE__, 0x1000, 0x10000, 200, 2, 0x1000, 0 },
		{ __LINE__, 0x1000, 0x10000, 200, 2, 0x1001, 0 },   /* 2 bytes per bucket */
		{ __LINE__, 0x1000, 0x10000, 200, 2, 0x1002, 1 },
		{ __LINE__, 0x1000, 0x10000, 200, 2, 0x1000 + 198, 99 },
		{ __LINE__, 0x1000, 0x10000, 200, 2, 0x1000 + 200, -1 }, /* past 100 buckets */
		{ __LINE__, 0x1000, 0x10000, 200, 4, 0x1000 + 98, 49 },  /* 50 32-bit buckets */
		{ __LINE__, 0x1000, 0x10000, 200, 4, 0x1000 + 100, -1 },
		{ __LINE__, 0x1000, 0x10000, 200, 8, 0x1000 + 48, 24 },
		{ __LINE__, 0x1000, 0x20000, 200, 2, 0x1000 + 7, 7 },    /* one per byte */
		{ __LINE__, 0x1000, 0x8000, 200, 2, 0x1000 + 7, 1 },     /* one per 4 bytes */
		{ __LINE__, 0x1000, 0x4000, 200, 2, 0x1000 + 17, 2 },    /* one per 8 bytes */
		{ __LINE__, 0x1000, 0x2, 2, 2, 0x1000 + 65535, 0 },      /* 64 KiB per bucket */
		{ __LINE__, 0x1000, 0x2, 2, 2, 0x1000 + 65536, -1 },
		{ __LINE__, 0x1000, 0x10000, 200, 2, 0xfff, -1 },        /* below the offset */
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		PAPI_sprofil_t r = { NULL, rows[i].size, (vptr_t)rows[i].off, rows[i].scale };

		th_at(rows[i].line);
		TH_EQ(tly_prof_bucket(&r, rows[i].bytes, (void *)rows[i].pc), rows[i].want);
	}
	th_at(0);
}

static void test_flags(void)
{
	uint16_t b16[4];
	uint64_t b64[4];
	PAPI_sprofil_t r16 = { b16, sizeof b16, (vptr_t)0x1000, 0x10000 };
	PAPI_sprofil_t r64 = { b64, sizeof b64, (vptr_t)0x1000, 0x10000 };
	struct tly_prof *p;

	/* default: saturate, never wrap */
	memset(b16, 0, sizeof b16);
	p = tly_prof_new(&r16, 1, PAPI_PROFIL_BUCKET_16);
	for (int i = 0; i < 70000; i++)
		tly_prof_hit(p, (void *)0x1002, 1);
	TH_EQ(b16[1], 65535);
	free(p);
	/* COMPRESS: halve the region when a bucket would overflow */
	memset(b16, 0, sizeof b16);
	b16[0] = 1000;
	p = tly_prof_new(&r16, 1, PAPI_PROFIL_BUCKET_16 | PAPI_PROFIL_COMPRESS);
	for (int i = 0; i < 65536; i++)
		tly_prof_hit(p, (void *)0x1002, 1);
	TH_EQ(b16[1], 65535 / 2 + 1);
	TH_EQ(b16[0], 500);
	free(p);
	/* WEIGHTED adds the weight, POSIX adds 1 */
	memset(b64, 0, sizeof b64);
	p = tly_prof_new(&r64, 1, PAPI_PROFIL_BUCKET_64 | PAPI_PROFIL_WEIGHTED);
	tly_prof_hit(p, (void *)0x1004, 5);
	TH_EQ(b64[2], 5);
	free(p);
	p = tly_prof_new(&r64, 1, PAPI_PROFIL_BUCKET_64);
	tly_prof_hit(p, (void *)0x1004, 5);
	TH_EQ(b64[2], 6);
	free(p);
	/* RANDOM keeps about three quarters */
	memset(b64, 0, sizeof b64);
	p = tly_prof_new(&r64, 1, PAPI_PROFIL_BUCKET_64 | PAPI_PROFIL_RANDOM);
	for (int i = 0; i < 40000; i++)
		tly_prof_hit(p, (void *)0x1000, 1);
	TH_NEAR(b64[0], 30000, 0.02);
	free(p);
}

int main(void)
{
	test_index();
	test_flags();
	return th_done();
}

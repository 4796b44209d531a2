/*
 * test_overflow_profil.c - argument checking of PAPI_overflow,
 * PAPI_profil, PAPI_sprofil and PAPI_get_overflow_event_index: unknown
 * set -> PAPI_ENOEVST, event not in the set -> PAPI_ENOEVNT, negative
 * threshold / missing handler or buffer / bad flags -> PAPI_EINVAL,
 * running set -> PAPI_EISRUN.
 */
#include "api_util.h"

static void handler(int es, void *addr, long long ov, void *ctx)
{
	(void)es; (void)addr; (void)ov; (void)ctx;
}

static unsigned short pbuf[4096];

static void test_overflow_args(int es, int tc, int pf)
{
	struct { int line; int rc; int want; } rows[] = {
		{ __LINE__, PAPI_overflow(987654, tc, 100000, 0, handler), PAPI_ENOEVST },
		{ __LINE__, PAPI_overflow(es, pf, 100000, 0, handler), PAPI_ENOEVNT },
		{ __LINE__, PAPI_overflow(es, PAPI_TOT_CYC, 100000, 0, handler), PAPI_ENOEVNT },
		{ __LINE__, PAPI_overflow(es, tc, -1, 0, handler), PAPI_EINVAL },
		{ __LINE__, PAPI_overflow(es, tc, -100000, 0, handler), PAPI_EINVAL },
		{ __LINE__, PAPI_overflow(es, tc, 100000, 0, NULL), PAPI_EINVAL },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		th_at(rows[i].line);
		TH_EQ(rows[i].rc, rows[i].want);
	}
	th_at(0);
}

static void test_profil_args(int es, int tc, int pf)
{
	PAPI_sprofil_t sp[2] = {
		{ pbuf, sizeof pbuf, (vptr_t)test_profil_args, 65536 },
		{ pbuf, sizeof pbuf, (vptr_t)handler, 65536 },
	};
	vptr_t off = (vptr_t)test_profil_args;
	const int f = PAPI_PROFIL_POSIX;
	struct { int line; int rc; int want; } rows[] = {
		{ __LINE__, PAPI_profil(pbuf, sizeof pbuf, off, 65536, 987654, tc, 100000, f), PAPI_ENOEVST },
		{ __LINE__, PAPI_profil(pbuf, sizeof pbuf, off, 65536, es, pf, 100000, f), PAPI_ENOEVNT },
		{ __LINE__, PAPI_profil(pbuf, sizeof pbuf, off, 65536, es, tc, -1, f), PAPI_EINVAL },
		{ __LINE__, PAPI_profil(NULL, sizeof pbuf, off, 65536, es, tc, 100000, f), PAPI_EINVAL },
		{ __LINE__, PAPI_profil(pbuf, 0, off, 65536, es, tc, 100000, f), PAPI_EINVAL },
		{ __LINE__, PAPI_profil(pbuf, sizeof pbuf, off, 65536, es, tc, 100000,
				       PAPI_PROFIL_BUCKET_16 | PAPI_PROFIL_BUCKET_32), PAPI_EINVAL },
		{ __LINE__, PAPI_profil(pbuf, sizeof pbuf, off, 65536, es, tc, 100000, 0x10000000), PAPI_EINVAL },
		{ __LINE__, PAPI_sprofil(sp, 2, 987654, tc, 100000, f), PAPI_ENOEVST },
		{ __LINE__, PAPI_sprofil(sp, 2, es, pf, 100000, f), PAPI_ENOEVNT },
		{ __LINE__, PAPI_sprofil(sp, 2, es, tc, -5, f), PAPI_EINVAL },
		{ __LINE__, PAPI_sprofil(NULL, 2, es, tc, 100000, f), PAPI_EINVAL },
		{ __LINE__, PAPI_sprofil(sp, 0, es, tc, 100000, f), PAPI_EINVAL },
		{ __LINE__, PAPI_sprofil(sp, -1, es, tc, 100000, f), PAPI_EINVAL },
		{ __LINE__, PAPI_sprofil(sp, 2, es, tc, 100000,
					PAPI_PROFIL_BUCKET_32 | PAPI_PROFIL_BUCKET_64), PAPI_EINVAL },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		th_at(rows[i].line);
		TH_EQ(rows[i].rc, rows[i].want);
	}
	th_at(0);
}

static void test_overflow_index_args(int es)
{
	int arr[4], n = 4;
	struct { int line; int rc; int want; } rows[] = {
		{ __LINE__, PAPI_get_overflow_event_index(987654, 1, arr, &n), PAPI_ENOEVST },
		{ __LINE__, PAPI_get_overflow_event_index(es, 1, NULL, &n), PAPI_EINVAL },
		{ __LINE__, PAPI_get_overflow_event_index(es, 1, arr, NULL), PAPI_EINVAL },
		{ __LINE__, PAPI_get_overflow_event_index(es, 0, arr, &n), PAPI_EINVAL },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		th_at(rows[i].line);
		TH_EQ(rows[i].rc, rows[i].want);
	}
	th_at(0);
	n = 0;
	TH_EQ(PAPI_get_overflow_event_index(es, 1, arr, &n), PAPI_EINVAL);
}

static void test_running(int es, int tc)
{
	PAPI_sprofil_t sp = { pbuf, sizeof pbuf, (vptr_t)test_running, 65536 };
	long long v[2];

	TH_EQ(PAPI_start(es), PAPI_OK);
	TH_EQ(PAPI_overflow(es, tc, 100000, 0, handler), PAPI_EISRUN);
	TH_EQ(PAPI_profil(pbuf, sizeof pbuf, (vptr_t)test_running, 65536, es, tc, 100000,
			  PAPI_PROFIL_POSIX), PAPI_EISRUN);
	TH_EQ(PAPI_sprofil(&sp, 1, es, tc, 100000, PAPI_PROFIL_POSIX), PAPI_EISRUN);
	TH_EQ(PAPI_stop(es, v), PAPI_OK);
	int st = 0;
	TH_EQ(PAPI_state(es, &st), PAPI_OK);
	TH_EQ(st, PAPI_STOPPED); /* none of the refused calls changed the set */
}

int main(void)
{
	int es = PAPI_NULL, tc, pf;

	api_init();
	TH_EQ(PAPI_event_name_to_code(API_TASK_CLOCK, &tc), PAPI_OK);
	TH_EQ(PAPI_event_name_to_code(API_PAGE_FAULTS, &pf), PAPI_OK);
	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	TH_EQ(PAPI_add_event(es, tc), PAPI_OK);
	test_overflow_args(es, tc, pf);
	test_profil_args(es, tc, pf);
	test_overflow_index_args(es);
	test_running(es, tc);
	TH_EQ(PAPI_cleanup_eventset(es), PAPI_OK);
	TH_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
	PAPI_shutdown();
	return th_done();
}

/*
 * test_pmu_domain.c - every PAPI_DOM_* constant on PAPI_TOT_INS.
 *
 * Each domain is set on a set (PAPI_set_opt PAPI_DOMAIN) and the set
 * measures pmu_loop(0) and pmu_loop(n).  Truth: the loop retires 2n user
 * instructions and no kernel ones of its own; PAPI_start and PAPI_stop
 * enter the kernel (ioctl), and the kernel instructions after the enable
 * and before the disable are counted wherever the kernel domain is:
 *   USER           (n) - (0) = 2n exactly
 *   KERNEL         (0) > 0, and (n) - (0) < 2n (only interrupts)
 *   USER|KERNEL, ALL and USER|KERNEL|SUPERVISOR:
 *                  (n) - (0) >= 2n, (0) > USER's (0)
 * PAPI_DOM_ALL (0xf) asks for every domain the machine has (as PAPI 7);
 * PAPI_DOM_OTHER alone names no mode Linux counts separately and is
 * refused with a reason.  PAPI_get_opt gives back what was set; the
 * default domain (PAPI_set_domain) takes PAPI_DOM_ALL too.
 */
#include <string.h>

#include "pmu_util.h"

#define N 5000000ull

struct row {
	int line;
	int domain;
	int ok;
};

static const struct row rows[] = {
	{ __LINE__, PAPI_DOM_USER, 1 },
	{ __LINE__, PAPI_DOM_KERNEL, 1 },
	{ __LINE__, PAPI_DOM_USER | PAPI_DOM_KERNEL, 1 },
	{ __LINE__, PAPI_DOM_USER | PAPI_DOM_SUPERVISOR, 1 },
	{ __LINE__, PAPI_DOM_USER | PAPI_DOM_KERNEL | PAPI_DOM_SUPERVISOR, 1 },
	{ __LINE__, PAPI_DOM_ALL, 1 },
	{ __LINE__, PAPI_DOM_OTHER, 0 },
};

static int measure(int domain, long long *c, long long *v)
{
	int set = PAPI_NULL, rc;
	PAPI_option_t opt;

	TH_EQ(PAPI_create_eventset(&set), PAPI_OK);
	TH_EQ(PAPI_add_event(set, PAPI_TOT_INS), PAPI_OK);
	memset(&opt, 0, sizeof opt);
	opt.domain.eventset = set;
	opt.domain.domain = domain;
	rc = PAPI_set_opt(PAPI_DOMAIN, &opt);
	if (rc == PAPI_OK) {
		memset(&opt, 0, sizeof opt);
		opt.domain.eventset = set;
		TH_EQ(PAPI_get_opt(PAPI_DOMAIN, &opt), PAPI_OK);
		TH_EQ(opt.domain.domain, domain);
		pmu_measure(set, 1000, v); /* warm up */
		TH_EQ(pmu_measure(set, 0, c), PAPI_OK);
		TH_EQ(pmu_measure(set, N, v), PAPI_OK);
	} else {
		printf("domain %#x refused: %s\n", (unsigned)domain, PAPI_strerror(rc));
	}
	PAPI_cleanup_eventset(set);
	PAPI_destroy_eventset(&set);
	return rc;
}

int main(void)
{
	long long user0 = -1, c[1], v[1];

	pmu_require();
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const struct row *r = &rows[i];
		int rc;

		th_at(r->line);
		c[0] = v[0] = -1;
		rc = measure(r->domain, c, v);
		if (!r->ok) {
			TH_CHECK(rc == PAPI_EINVAL || rc == PAPI_EINVAL_DOM);
			continue;
		}
		TH_EQ(rc, PAPI_OK);
		if (rc != PAPI_OK)
			continue;
		printf("domain %#-4x  loop(0) %9lld  loop(n) - loop(0) %9lld  (2n = %lld)\n", (unsigned)r->domain, c[0],
		       v[0] - c[0], 2 * (long long)N);
		if (r->domain == PAPI_DOM_USER) {
			TH_EQ(v[0] - c[0], 2 * (long long)N);
			user0 = c[0];
		} else if (r->domain == PAPI_DOM_KERNEL) {
			TH_CHECK(c[0] > 0);
			TH_CHECK(v[0] - c[0] < 2 * (long long)N);
		} else if (r->domain & PAPI_DOM_KERNEL) {
			TH_CHECK(v[0] - c[0] >= 2 * (long long)N);
			TH_CHECK(user0 >= 0 && c[0] > user0);
		} else {
			TH_EQ(v[0] - c[0], 2 * (long long)N);
		}
	}
	th_at(0);
	TH_EQ(PAPI_set_domain(PAPI_DOM_ALL), PAPI_OK);
	TH_EQ(PAPI_set_domain(PAPI_DOM_USER), PAPI_OK);
	PAPI_shutdown();
	return th_done();
}

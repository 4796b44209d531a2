/*
 * pe_test.h - helpers shared by the perf_event component tests: drive the
 * component through its hooks, and produce ground truth (touched pages,
 * CPU time) independently of perf.
 */
#ifndef TALLY_PE_TEST_H
#define TALLY_PE_TEST_H

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "tharness.h"
#include "th_sys.h"
#include "core/errors.h"
#include "components/perf_event/pe_internal.h"

static const struct tly_component *const pe = &tly_cmp_perf_event;

/* Initialise the component: skip the whole test only when the kernel
 * opens no perf event at all; the component failing or disabling itself
 * where the kernel can count is a failure. */
static inline void pe_test_init(PAPI_component_info_t *info)
{
	th_need_sw_perf();
	memset(info, 0, sizeof *info);
	if (pe->init(info) != PAPI_OK || info->disabled != PAPI_OK) {
		fprintf(stderr, "perf_event disabled: %s\n", info->disabled_reason);
		TH_FATAL("the perf_event component is disabled though the kernel opens a software event");
	}
}

static inline struct tly_ctl_opts pe_test_opts(int domain)
{
	struct tly_ctl_opts o = { .domain = domain, .granularity = PAPI_GRN_THR, .cpu = -1 };
	return o;
}

/* A control state with the given events; NULL (and *rc) on failure. */
static inline void *pe_test_ctl(const struct tly_ctl_opts *o, const char *const *names, int n, int *rc)
{
	void *ctl = malloc(pe->ctl_size);

	*rc = pe->ctl_init(ctl, o);
	if (*rc == PAPI_OK)
		*rc = pe->ctl_update(ctl, names, n);
	if (*rc != PAPI_OK) {
		printf("ctl failed (%d): %s\n", *rc, tly_err_detail());
		pe->ctl_cleanup(ctl);
		free(ctl);
		return NULL;
	}
	return ctl;
}

static inline void pe_test_ctl_free(void *ctl)
{
	if (ctl) {
		pe->ctl_cleanup(ctl);
		free(ctl);
	}
}

/* A fresh anonymous mapping of n pages, no transparent huge pages (one
 * fault per 4 KiB page is the ground truth). */
static inline char *fresh_pages(long n)
{
	long psz = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)(n * psz), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	madvise(p, (size_t)(n * psz), MADV_NOHUGEPAGE);
	return p;
}

TH_UNINSTRUMENTED static inline void touch_pages(char *p, long n)
{
	long psz = sysconf(_SC_PAGESIZE);

	for (long i = 0; i < n; i++)
		((volatile char *)p)[i * psz] = 1;
}

#endif /* TALLY_PE_TEST_H */

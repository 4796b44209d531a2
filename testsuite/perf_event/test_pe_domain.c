/*
 * test_pe_domain.c - counting domains against what the kernel does:
 * page faults of user-space stores are user-mode faults; pages the kernel
 * fills (read() from /dev/zero into a fresh mapping) fault in kernel mode.
 * Where perf_event_paranoid forbids kernel counting, the component must
 * say so with PAPI_EPERM.
 */
#include <sys/syscall.h>
#include <fcntl.h>
#include <string.h>

#include "pe_test.h"

#define N 2000

static const char *const names[] = { "perf::PAGE-FAULTS" };

/* Page faults counted in `domain` for user stores and for kernel fills. */
static int faults(void *ctl, long long *user, long long *kernel)
{
	size_t len = (size_t)N * (size_t)sysconf(_SC_PAGESIZE);
	char *a = fresh_pages(N), *b = fresh_pages(N);
	int z = open("/dev/zero", O_RDONLY);
	long long v;
	ssize_t got;

	if (!a || !b || z < 0)
		return -1;
	TH_EQ(pe->ctl_start(ctl), PAPI_OK);
	touch_pages(a, N);
	TH_EQ(pe->ctl_stop(ctl), PAPI_OK);
	TH_EQ(pe->ctl_read(ctl, &v), PAPI_OK);
	*user = v;
	TH_EQ(pe->ctl_start(ctl), PAPI_OK);
	/* The raw syscall: a sanitizer's read() interceptor would touch
	 * shadow pages of b from user mode. */
	got = syscall(SYS_read, z, b, len);
	TH_EQ(pe->ctl_stop(ctl), PAPI_OK);
	TH_EQ(pe->ctl_read(ctl, &v), PAPI_OK);
	TH_EQ(got, (long long)len);
	*kernel = v;
	close(z);
	munmap(a, len);
	munmap(b, len);
	return 0;
}

static const struct {
	int line;
	int domain;
	int user_x;    /* expected faults from user stores, in units of N */
	int kernel_x;  /* expected faults from kernel fills, in units of N */
} rows[] = {
	{ __LINE__, PAPI_DOM_USER, 1, 0 },
	{ __LINE__, PAPI_DOM_KERNEL, 0, 1 },
	{ __LINE__, PAPI_DOM_USER | PAPI_DOM_KERNEL, 1, 1 },
	{ __LINE__, PAPI_DOM_ALL, 1, 1 },
};

int main(void)
{
	PAPI_component_info_t info;
	struct tly_ctl_opts o = pe_test_opts(PAPI_DOM_USER);
	long long u = -1, k = -1;
	int rc;
	void *ctl;

	pe_test_init(&info);
	ctl = pe_test_ctl(&o, names, 1, &rc);
	TH_EQ(rc, PAPI_OK);
	if (!ctl)
		return th_done();
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		th_at(rows[i].line);
		o.domain = rows[i].domain;
		rc = pe->ctl_set_opts(ctl, &o);
		if (!(info.available_domains & PAPI_DOM_KERNEL) && (rows[i].domain & PAPI_DOM_KERNEL)) {
			TH_EQ(rc, PAPI_EPERM);
			TH_CHECK(strstr(tly_err_detail(), "perf_event_paranoid") != NULL);
			continue;
		}
		TH_EQ(rc, PAPI_OK);
		TH_EQ(faults(ctl, &u, &k), 0);
		printf("domain %#x: user stores %lld faults, kernel fills %lld faults (N=%d)\n",
		       rows[i].domain, u, k, N);
		TH_CHECK(llabs(u - (long long)rows[i].user_x * N) <= N / 50);
		TH_CHECK(llabs(k - (long long)rows[i].kernel_x * N) <= N / 50);
	}
	th_at(0);
	o.domain = PAPI_DOM_OTHER;
	TH_EQ(pe->ctl_set_opts(ctl, &o), PAPI_EINVAL_DOM);
	o.domain = PAPI_DOM_USER;
	o.granularity = PAPI_GRN_SYS;
	TH_EQ(pe->ctl_set_opts(ctl, &o), PAPI_EINVAL);
	pe_test_ctl_free(ctl);
	pe->shutdown();
	return th_done();
}

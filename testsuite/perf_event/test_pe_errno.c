/*
 * test_pe_errno.c - the errno -> PAPI mapping table and its messages.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pe_test.h"
#include "th_sys.h"

static const struct {
	int line;
	int err;
	int op;
	int code;
} rows[] = {
	{ __LINE__, EACCES, TLY_PE_OP_OPEN, PAPI_EPERM },
	{ __LINE__, EPERM, TLY_PE_OP_OPEN, PAPI_EPERM },
	{ __LINE__, EPERM, TLY_PE_OP_IOCTL, PAPI_EPERM },
	{ __LINE__, ENOENT, TLY_PE_OP_OPEN, PAPI_ENOEVNT },
	{ __LINE__, EOPNOTSUPP, TLY_PE_OP_OPEN, PAPI_ENOEVNT },
	{ __LINE__, ENODEV, TLY_PE_OP_OPEN, PAPI_ENOEVNT },
	{ __LINE__, EINVAL, TLY_PE_OP_OPEN, PAPI_EINVAL },
	{ __LINE__, EINVAL, TLY_PE_OP_OPEN_MEMBER, PAPI_ECNFLCT },
	{ __LINE__, EINVAL, TLY_PE_OP_IOCTL, PAPI_EINVAL },
	{ __LINE__, ENOSPC, TLY_PE_OP_OPEN, PAPI_ECNFLCT },
	{ __LINE__, EBUSY, TLY_PE_OP_OPEN, PAPI_ECNFLCT },
	{ __LINE__, E2BIG, TLY_PE_OP_OPEN, PAPI_EINVAL },
	{ __LINE__, ESRCH, TLY_PE_OP_OPEN, PAPI_EINVAL },
	{ __LINE__, EMFILE, TLY_PE_OP_OPEN, PAPI_ESYS },
	{ __LINE__, ENFILE, TLY_PE_OP_OPEN, PAPI_ESYS },
	{ __LINE__, ENOMEM, TLY_PE_OP_OPEN, PAPI_ENOMEM },
	{ __LINE__, ENOSYS, TLY_PE_OP_PROBE, PAPI_ECMP },
	{ __LINE__, EFAULT, TLY_PE_OP_READ, PAPI_EBUG },
	{ __LINE__, EBADF, TLY_PE_OP_READ, PAPI_EBUG },
	{ __LINE__, EINTR, TLY_PE_OP_READ, PAPI_ESYS },
	{ __LINE__, 9999, TLY_PE_OP_OPEN, PAPI_ESYS },
};

int main(void)
{
	char want[64];

	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		th_at(rows[i].line);
		TH_EQ(tly_pe_errno_code(rows[i].err, rows[i].op), rows[i].code);
		tly_err_clear();
		TH_EQ(tly_pe_fail(rows[i].err, rows[i].op, "perf::X"), rows[i].code);
		TH_CHECK(strstr(tly_err_detail(), "perf::X") != NULL);
	}
	th_at(0);
	/* permission failures name the sysctl and its current value */
	snprintf(want, sizeof want, "/proc/sys/kernel/perf_event_paranoid is %d", th_paranoid());
	tly_pe_fail(EACCES, TLY_PE_OP_OPEN, "perf::TASK-CLOCK");
	TH_CHECK(strstr(tly_err_detail(), want) != NULL);
	tly_pe_fail(ENOENT, TLY_PE_OP_OPEN, "perf::CYCLES");
	TH_CHECK(strstr(tly_err_detail(), "no such event") != NULL);
	TH_EQ(tly_perf_paranoid(), th_paranoid());
	return th_done();
}

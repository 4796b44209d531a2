/*
 * pe_errno.c - the one place where perf_event errno values become PAPI
 * codes and sentences a user can act on.
 */
#include "pe_internal.h"

#include <errno.h>
#include <string.h>

#include "services/err_detail.h"

#define ANY_OP -1

struct errno_row {
	int err;
	int op;    /* enum tly_pe_op, or ANY_OP */
	int code;
};

/* First match wins, so op-specific rows come before ANY_OP rows. */
static const struct errno_row rows[] = {
	{ EINVAL, TLY_PE_OP_OPEN_MEMBER, PAPI_ECNFLCT },
	{ EINVAL, ANY_OP, PAPI_EINVAL },
	{ EACCES, ANY_OP, PAPI_EPERM },
	{ EPERM, ANY_OP, PAPI_EPERM },
	{ ENOENT, ANY_OP, PAPI_ENOEVNT },
	{ EOPNOTSUPP, ANY_OP, PAPI_ENOEVNT },
	{ ENODEV, ANY_OP, PAPI_ENOEVNT },
	{ ENOSPC, ANY_OP, PAPI_ECNFLCT },
	{ EBUSY, ANY_OP, PAPI_ECNFLCT },
	{ E2BIG, ANY_OP, PAPI_EINVAL },
	{ ESRCH, ANY_OP, PAPI_EINVAL },
	{ EMFILE, ANY_OP, PAPI_ESYS },
	{ ENFILE, ANY_OP, PAPI_ESYS },
	{ ENOMEM, ANY_OP, PAPI_ENOMEM },
	{ ENOSYS, ANY_OP, PAPI_ECMP },
	{ EFAULT, ANY_OP, PAPI_EBUG },
	{ EBADF, ANY_OP, PAPI_EBUG },
};

int tly_pe_errno_code(int err, int op)
{
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		if (rows[i].err == err && (rows[i].op == op || rows[i].op == ANY_OP))
			return rows[i].code;
	return PAPI_ESYS;
}

static const char *op_text(int op)
{
	switch (op) {
	case TLY_PE_OP_OPEN: return "perf_event_open";
	case TLY_PE_OP_OPEN_MEMBER: return "perf_event_open (adding to the group)";
	case TLY_PE_OP_IOCTL: return "perf_event ioctl";
	case TLY_PE_OP_READ: return "read of the perf counters";
	default: return "probing perf_event_open";
	}
}

/* The remedy depends on the errno, not on the PAPI code, because several
 * errno values share a code but have different causes. */
static const char *remedy(int err, int op)
{
	switch (err) {
	case EINVAL:
		return op == TLY_PE_OP_OPEN_MEMBER
			? "the kernel refuses these events in one group; put them in separate event sets"
			: "the kernel rejects this event or option combination (domain, granularity, inherit)";
	case ENOENT: case EOPNOTSUPP: case ENODEV:
		return "the kernel has no such event on this machine (no hardware PMU, or the PMU lacks it)";
	case ENOSPC: case EBUSY:
		return "the counters are in use or too few; use fewer events or enable multiplexing";
	case ESRCH:
		return "the thread or process to attach to does not exist";
	case EMFILE: case ENFILE:
		return "out of file descriptors; raise the limit (ulimit -n)";
	case ENOSYS:
		return "this kernel was built without perf events (CONFIG_PERF_EVENTS)";
	default:
		return "see perf_event_open(2)";
	}
}

int tly_pe_fail(int err, int op, const char *event)
{
	int code = tly_pe_errno_code(err, op);
	const char *ev = event ? event : "";

	if (err == EACCES || err == EPERM)
		return tly_err_set(code, "%s(%s) was refused (%s): /proc/sys/kernel/perf_event_paranoid is %d; "
		                   "kernel-domain, CPU-wide or other users' counting needs a lower setting "
		                   "(e.g. sysctl kernel.perf_event_paranoid=1, or -1 for everything) or CAP_PERFMON",
		                   op_text(op), ev, strerror(err), tly_perf_paranoid());
	return tly_err_set(code, "%s(%s) failed (%s): %s", op_text(op), ev, strerror(err), remedy(err, op));
}

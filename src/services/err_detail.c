/*
 * err_detail.c - the per-thread failure detail (see err_detail.h).
 */
#include "services/err_detail.h"

#include <stdarg.h>
#include <stdio.h>

#include "papi.h"

/* Why the calling thread's last call failed; per thread so concurrent
 * failures never overwrite each other. */
static _Thread_local char detail[TLY_ERR_DETAIL_LEN];
static _Thread_local int last_code;

int tly_err_set(int code, const char *fmt, ...)
{
	va_list ap;

	last_code = code;
	va_start(ap, fmt);
	vsnprintf(detail, sizeof detail, fmt, ap);
	va_end(ap);
	return code;
}

const char *tly_err_detail(void)
{
	return detail;
}

int tly_err_last_code(void)
{
	return last_code;
}

void tly_err_clear(void)
{
	detail[0] = '\0';
	last_code = PAPI_OK;
}

int tly_err_from_errno(int err)
{
	switch (err) {
	case 0:
		return PAPI_OK;
	case ENOMEM:
		return PAPI_ENOMEM;
	case EPERM:
	case EACCES:
		return PAPI_EPERM;
	case EINVAL:
		return PAPI_EINVAL;
	case ENOENT:
	case EOPNOTSUPP:
		return PAPI_ENOEVNT;
	case ENOSYS:
		return PAPI_ENOSUPP;
	default:
		return PAPI_ESYS;
	}
}

#include "core/sysinfo.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/errors.h"
#include "core/procfs.h"

/* Which /proc/self/status line (in kB) feeds which PAPI_dmem_info_t field. */
static const struct {
	const char *key;
	size_t offset;
} status_fields[] = {
	{ "VmPeak", offsetof(PAPI_dmem_info_t, peak) },
	{ "VmSize", offsetof(PAPI_dmem_info_t, size) },
	{ "VmRSS", offsetof(PAPI_dmem_info_t, resident) },
	{ "VmHWM", offsetof(PAPI_dmem_info_t, high_water_mark) },
	{ "VmExe", offsetof(PAPI_dmem_info_t, text) },
	{ "VmLib", offsetof(PAPI_dmem_info_t, library) },
	{ "VmData", offsetof(PAPI_dmem_info_t, heap) },
	{ "VmLck", offsetof(PAPI_dmem_info_t, locked) },
	{ "VmStk", offsetof(PAPI_dmem_info_t, stack) },
	{ "VmPTE", offsetof(PAPI_dmem_info_t, pte) },
};

/* "1234 kB" -> 1234; -1 when the line is absent (older kernels). */
static long long status_kb(const char *text, const char *key)
{
	char buf[64], *end;
	long long v;

	if (tly_kv_find(text, key, buf, sizeof buf) != PAPI_OK)
		return -1;
	v = strtoll(buf, &end, 10);
	return end == buf ? -1 : v;
}

int tly_dmem_info(PAPI_dmem_info_t *dest)
{
	char text[16384];
	long long file, shmem;
	long n;

	if (!dest)
		return tly_err_set(PAPI_EINVAL, "PAPI_get_dmem_info needs a non-NULL PAPI_dmem_info_t pointer.");
	n = tly_read_text("/proc/self/status", text, sizeof text);
	if (n < 0)
		return tly_err_set(PAPI_ESYS, "Cannot read /proc/self/status; memory information unavailable.");
	for (size_t i = 0; i < sizeof status_fields / sizeof status_fields[0]; i++) {
		long long *field = (long long *)((char *)dest + status_fields[i].offset);

		*field = status_kb(text, status_fields[i].key);
	}
	/* Shared = resident pages backed by files or shared memory. */
	file = status_kb(text, "RssFile");
	shmem = status_kb(text, "RssShmem");
	dest->shared = (file < 0 && shmem < 0) ? -1 : (file > 0 ? file : 0) + (shmem > 0 ? shmem : 0);
	dest->pagesize = sysconf(_SC_PAGESIZE);
	return PAPI_OK;
}

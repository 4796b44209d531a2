/*
 * test_dmem_info.c - PAPI_get_dmem_info against /proc/self/status read
 * here just before and just after, and a 64 MiB touch seen in resident.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* realpath, dladdr, clock_gettime, PATH_MAX */
#endif
#include <sys/mman.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "papi.h"
#include "tharness.h"
#include "truth.h"

/* Field values in kB before and after the call under test bracket it. */
static void check_fields(void)
{
	static const struct { int line; const char *key; size_t off; } rows[] = {
		{ __LINE__, "VmPeak", offsetof(PAPI_dmem_info_t, peak) },
		{ __LINE__, "VmSize", offsetof(PAPI_dmem_info_t, size) },
		{ __LINE__, "VmRSS", offsetof(PAPI_dmem_info_t, resident) },
		{ __LINE__, "VmHWM", offsetof(PAPI_dmem_info_t, high_water_mark) },
		{ __LINE__, "VmExe", offsetof(PAPI_dmem_info_t, text) },
		{ __LINE__, "VmLib", offsetof(PAPI_dmem_info_t, library) },
		{ __LINE__, "VmData", offsetof(PAPI_dmem_info_t, heap) },
		{ __LINE__, "VmLck", offsetof(PAPI_dmem_info_t, locked) },
		{ __LINE__, "VmStk", offsetof(PAPI_dmem_info_t, stack) },
		{ __LINE__, "VmPTE", offsetof(PAPI_dmem_info_t, pte) },
	};
	long long before[16], after[16], sh_before, sh_after;
	PAPI_dmem_info_t d;
	size_t n = sizeof rows / sizeof rows[0];

	for (size_t i = 0; i < n; i++)
		before[i] = truth_status_kb(rows[i].key);
	sh_before = truth_status_kb("RssFile") + truth_status_kb("RssShmem");
	TH_EQ(PAPI_get_dmem_info(&d), PAPI_OK);
	sh_after = truth_status_kb("RssFile") + truth_status_kb("RssShmem");
	for (size_t i = 0; i < n; i++)
		after[i] = truth_status_kb(rows[i].key);
	for (size_t i = 0; i < n; i++) {
		long long v = *(long long *)((char *)&d + rows[i].off);
		long long lo = before[i] < after[i] ? before[i] : after[i];
		long long hi = before[i] < after[i] ? after[i] : before[i];

		th_at(rows[i].line);
		TH_CHECK(before[i] >= 0);
		TH_CHECK(v >= lo && v <= hi);
	}
	th_at(0);
	TH_CHECK(d.shared >= (sh_before < sh_after ? sh_before : sh_after));
	TH_CHECK(d.shared <= (sh_before < sh_after ? sh_after : sh_before));
	TH_EQ(d.pagesize, sysconf(_SC_PAGESIZE));
}

/* Touching 64 MiB raises resident by ~64 MiB; freeing it lowers it again. */
TH_UNINSTRUMENTED static void check_touch(void)
{
	const size_t bytes = 64u << 20;
	PAPI_dmem_info_t a, b, c;
	char *p;

	TH_EQ(PAPI_get_dmem_info(&a), PAPI_OK);
	/* mmap, not malloc: a sanitizer's allocator keeps freed blocks. */
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	TH_CHECK(p != MAP_FAILED);
	if (p == MAP_FAILED)
		return;
	for (size_t i = 0; i < bytes; i += (size_t)sysconf(_SC_PAGESIZE))
		p[i] = (char)i;
	TH_EQ(PAPI_get_dmem_info(&b), PAPI_OK);
	TH_NEAR(b.resident - a.resident, 64 * 1024, 0.10);
	TH_NEAR(b.size - a.size, 64 * 1024, 0.10);
	TH_CHECK(b.high_water_mark >= b.resident);
	TH_CHECK(b.peak >= b.size);
	/* Unmapping gives the pages back; the peaks stay. */
	munmap(p, bytes);
	TH_EQ(PAPI_get_dmem_info(&c), PAPI_OK);
	TH_NEAR(b.resident - c.resident, 64 * 1024, 0.10);
	TH_NEAR(c.high_water_mark - c.resident, 64 * 1024, 0.10);
	TH_NEAR(c.peak - c.size, 64 * 1024, 0.10);
}

int main(void)
{
	PAPI_dmem_info_t d;

	TH_EQ(PAPI_get_dmem_info(NULL), PAPI_EINVAL);
	TH_EQ(PAPI_get_dmem_info(&d), PAPI_ENOINIT);
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		TH_FATAL("PAPI_library_init failed");
	TH_EQ(PAPI_get_dmem_info(NULL), PAPI_EINVAL);
	check_fields();
	check_touch();
	check_fields(); /* now peaks and current values differ by 64 MiB */
	PAPI_shutdown();
	TH_EQ(PAPI_get_dmem_info(&d), PAPI_ENOINIT);
	return th_done();
}

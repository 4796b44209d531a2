/*
 * test_exe_info.c - PAPI_get_executable_info: the name is realpath of
 * /proc/self/exe, and a function, an initialised global and a zeroed
 * global of this program lie in the text, data and bss ranges; the text
 * range is backed by an executable mapping of this file in /proc/self/maps.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* realpath, dladdr, clock_gettime, PATH_MAX */
#endif
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi.h"
#include "tharness.h"

int initialised_global = 42;   /* .data */
int zeroed_global;             /* .bss */
static char zeroed_block[8192]; /* .bss, spans pages */

__attribute__((noinline)) int function_in_text(int x)
{
	return x * 3 + initialised_global + zeroed_global + zeroed_block[x & 7];
}

static int inside(const void *p, vptr_t lo, vptr_t hi)
{
	return (const char *)p >= (const char *)lo && (const char *)p < (const char *)hi;
}

/* Every byte of [lo, hi) is covered by r-x mappings of `path`. */
static int text_is_mapped_code(const char *path, vptr_t lo, vptr_t hi)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[PATH_MAX + 128], perms[8], file[PATH_MAX];
	unsigned long long s, e, covered = (unsigned long long)(uintptr_t)lo;

	if (!f)
		return 0;
	while (fgets(line, sizeof line, f)) {
		file[0] = '\0';
		if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %4095s", &s, &e, perms, file) < 3)
			continue;
		if (strcmp(file, path) == 0 && perms[2] == 'x' && s <= covered && e > covered)
			covered = e;
	}
	fclose(f);
	return covered >= (unsigned long long)(uintptr_t)hi;
}

int main(void)
{
	const PAPI_exe_info_t *exe;
	char real[PATH_MAX];
	const char *base;

	TH_CHECK(PAPI_get_executable_info() == NULL);
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		TH_FATAL("PAPI_library_init failed");
	exe = PAPI_get_executable_info();
	TH_CHECK(exe != NULL);
	if (!exe || !realpath("/proc/self/exe", real))
		return th_done();
	base = strrchr(real, '/') + 1;
	TH_CHECK(strcmp(exe->fullname, real) == 0);
	TH_CHECK(strcmp(exe->address_info.name, base) == 0);

	const PAPI_address_map_t *m = &exe->address_info;
	TH_CHECK(inside((const void *)function_in_text, m->text_start, m->text_end));
	TH_CHECK(inside((const void *)main, m->text_start, m->text_end));
	TH_CHECK(inside(&initialised_global, m->data_start, m->data_end));
	TH_CHECK(inside(&zeroed_global, m->bss_start, m->bss_end));
	TH_CHECK(inside(zeroed_block, m->bss_start, m->bss_end));
	TH_CHECK(inside(zeroed_block + sizeof zeroed_block - 1, m->bss_start, m->bss_end));
	TH_CHECK(!inside(&zeroed_global, m->data_start, m->data_end));
	TH_CHECK(!inside(&initialised_global, m->bss_start, m->bss_end));
	TH_CHECK(text_is_mapped_code(real, m->text_start, m->text_end));
	TH_CHECK(function_in_text(1) == 45);
	PAPI_shutdown();
	return th_done();
}

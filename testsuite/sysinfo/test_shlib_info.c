/*
 * test_shlib_info.c - PAPI_get_shared_lib_info against /proc/self/maps
 * parsed here, libtally's own text range, and a dlopen/dlclose cycle.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* realpath, dladdr, clock_gettime, PATH_MAX */
#endif
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi.h"
#include "tharness.h"

#ifndef SHLIB_DUMMY_PATH
#error "SHLIB_DUMMY_PATH must name the test library"
#endif

#define MAX_FILES 512

/* Distinct files with an executable mapping, as /proc/self/maps shows them. */
static int count_code_files(void)
{
	static char names[MAX_FILES][PATH_MAX];
	char line[PATH_MAX + 128], perms[8], file[PATH_MAX];
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;

	while (f && fgets(line, sizeof line, f)) {
		int dup = 0;

		file[0] = '\0';
		if (sscanf(line, "%*s %7s %*s %*s %*s %4095s", perms, file) < 2 || file[0] != '/' || perms[2] != 'x')
			continue;
		for (int i = 0; i < n && !dup; i++)
			dup = strcmp(names[i], file) == 0;
		if (!dup && n < MAX_FILES)
			strcpy(names[n++], file);
	}
	if (f)
		fclose(f);
	return n;
}

static const PAPI_address_map_t *find(const PAPI_shlib_info_t *s, const char *path)
{
	for (int i = 0; s && i < s->count; i++)
		if (strcmp(s->map[i].name, path) == 0)
			return &s->map[i];
	return NULL;
}

static int inside(const void *p, vptr_t lo, vptr_t hi)
{
	return (const char *)p >= (const char *)lo && (const char *)p < (const char *)hi;
}

/* libtally.so is listed and its text holds PAPI_library_init. */
static void check_libtally(const PAPI_shlib_info_t *s)
{
	Dl_info di;
	char real[PATH_MAX];
	const PAPI_address_map_t *m;

	TH_CHECK(dladdr((void *)PAPI_library_init, &di) != 0);
	TH_CHECK(strstr(di.dli_fname, "libtally.so") != NULL);
	if (!realpath(di.dli_fname, real))
		return;
	m = find(s, real);
	TH_CHECK(m != NULL);
	if (m)
		TH_CHECK(inside((void *)PAPI_library_init, m->text_start, m->text_end));
}

static void check_dlopen_cycle(int before)
{
	char real[PATH_MAX];
	const PAPI_shlib_info_t *s;
	const PAPI_address_map_t *m;
	void *h = dlopen(SHLIB_DUMMY_PATH, RTLD_NOW | RTLD_LOCAL);

	TH_CHECK(h != NULL && realpath(SHLIB_DUMMY_PATH, real) != NULL);
	if (!h)
		return;
	s = PAPI_get_shared_lib_info();
	TH_EQ(s->count, before + 1);
	TH_EQ(s->count, count_code_files());
	m = find(s, real);
	TH_CHECK(m != NULL);
	if (m) {
		char *bss = dlsym(h, "shlib_dummy_bss");

		TH_CHECK(bss != NULL && dlsym(h, "shlib_dummy_fn") && dlsym(h, "shlib_dummy_data"));
		if (!bss)
			bss = (char *)m->bss_end; /* fails the range check below, never crashes */

		TH_CHECK(inside(dlsym(h, "shlib_dummy_fn"), m->text_start, m->text_end));
		TH_CHECK(inside(dlsym(h, "shlib_dummy_data"), m->data_start, m->data_end));
		/* The last page of a 64 KiB zeroed array is past the file-backed data. */
		TH_CHECK(inside(bss + (1 << 16) - 1, m->bss_start, m->bss_end));
	}
	dlclose(h);
	s = PAPI_get_shared_lib_info();
	TH_EQ(s->count, before);
	TH_CHECK(find(s, real) == NULL);
}

int main(void)
{
	const PAPI_shlib_info_t *s;

	TH_CHECK(PAPI_get_shared_lib_info() == NULL);
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		TH_FATAL("PAPI_library_init failed");
	s = PAPI_get_shared_lib_info();
	TH_CHECK(s != NULL);
	if (!s)
		return th_done();
	TH_EQ(s->count, count_code_files());
	check_libtally(s);
	check_dlopen_cycle(s->count);
	PAPI_shutdown();
	return th_done();
}

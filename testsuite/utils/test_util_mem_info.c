/*
 * test_util_mem_info.c - every cache of cpu0 in sysfs appears in
 * papi_mem_info's output at the same level, of the same type, with the
 * same size.  argv[1]: path of papi_mem_info.
 */
#define _POSIX_C_SOURCE 200809L
#include "util_run.h"
#include "tharness.h"

#define SYS_CACHE "/sys/devices/system/cpu/cpu0/cache"

static int read_sys(int idx, const char *field, char *buf, size_t size)
{
	char path[256];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), SYS_CACHE "/index%d/%s", idx, field);
	f = fopen(path, "r");
	if (!f)
		return 0;
	ok = fgets(buf, (int)size, f) != NULL;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

/* Size in KB printed for "L<level> <type> cache"; -1 when not listed. */
static long listed_kb(const char *text, int level, const char *type)
{
	const char *cur = text;
	char line[1024], kind[32], unit[8];
	int lvl;
	long size;

	while (ut_line(&cur, line, sizeof(line))) {
		if (sscanf(line, " L%d %31s cache : %ld %7s", &lvl, kind, &size, unit) != 4)
			continue;
		if (lvl != level || strcmp(kind, type) != 0)
			continue;
		return strncmp(unit, "KB", 2) == 0 ? size : size / 1024;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct ut_out o;
	char level[16], type[32], size[32];
	int n = 0;

	if (argc < 2)
		TH_FATAL("usage: test_util_mem_info PATH_TO_papi_mem_info");
	if (!read_sys(0, "level", level, sizeof(level)))
		TH_SKIP("no cache information in " SYS_CACHE);
	ut_run(&o, UT_MERGE, "%s", argv[1]);
	TH_EQ(o.status, 0);
	for (int i = 0; read_sys(i, "level", level, sizeof(level)); i++) {
		long kb;

		if (!read_sys(i, "type", type, sizeof(type)) || !read_sys(i, "size", size, sizeof(size)))
			continue;
		kb = listed_kb(o.text, atoi(level), type);
		printf("sysfs L%s %s %s -> listed %ld KB\n", level, type, size, kb);
		TH_EQ(kb, atol(size)); /* sysfs sizes read "48K" */
		n++;
	}
	TH_CHECK(n > 0);
	if (th_failures)
		ut_dump(&o);
	ut_free(&o);

	ut_run(&o, UT_MERGE, "%s -y", argv[1]);
	TH_CHECK(o.status > 0);
	ut_free(&o);
	return th_done();
}

/*
 * test_procfs.c - the /proc and /sys text helpers (core/procfs.h):
 * cpu lists, sizes and "key : value" lookups, table-driven, plus a file
 * read compared with stdio's reading of the same file.
 */
#include <stdio.h>
#include <string.h>

#include "core/procfs.h"
#include "papi.h"
#include "tharness.h"

static void check_cpulist(void)
{
	static const struct { int line; const char *in; int want; } rows[] = {
		{ __LINE__, "0", 1 },
		{ __LINE__, "0-3", 4 },
		{ __LINE__, "0-3,8,10-11", 7 },
		{ __LINE__, "0-1\n", 2 },
		{ __LINE__, "", 0 },
		{ __LINE__, "3-1", -1 },
		{ __LINE__, "a", -1 },
		{ __LINE__, "0,,1", -1 },
		{ __LINE__, "0-", -1 },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		th_at(rows[i].line);
		TH_EQ(tly_cpulist_count(rows[i].in), rows[i].want);
	}
	th_at(0);
}

static void check_size(void)
{
	static const struct { int line; const char *in; long long want; } rows[] = {
		{ __LINE__, "48K", 48 * 1024 },
		{ __LINE__, "2048K\n", 2048 * 1024 },
		{ __LINE__, "1M", 1024 * 1024 },
		{ __LINE__, "512", 512 },
		{ __LINE__, "107520K", 107520LL * 1024 },
		{ __LINE__, "K", -1 },
		{ __LINE__, "12Q", -1 },
		{ __LINE__, "-4K", -1 },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		th_at(rows[i].line);
		TH_EQ(tly_parse_size(rows[i].in), rows[i].want);
	}
	th_at(0);
}

static void check_kv(void)
{
	static const char text[] =
		"processor\t: 0\nmodel\t\t: 143\nmodel name\t: Some CPU  \n"
		"cpu MHz dynamic\t: 1\ncpu MHz\t\t: 2000.000\nVmRSS:\t    1760 kB\nempty:\n";
	static const struct { int line; const char *key; int rc; const char *want; } rows[] = {
		{ __LINE__, "model", PAPI_OK, "143" },
		{ __LINE__, "model name", PAPI_OK, "Some CPU" },
		{ __LINE__, "cpu MHz", PAPI_OK, "2000.000" },
		{ __LINE__, "VmRSS", PAPI_OK, "1760 kB" },
		{ __LINE__, "empty", PAPI_OK, "" },
		{ __LINE__, "missing", PAPI_ENOEVNT, "" },
		{ __LINE__, "cpu", PAPI_ENOEVNT, "" },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		char out[64] = "";

		th_at(rows[i].line);
		TH_EQ(tly_kv_find(text, rows[i].key, out, sizeof out), rows[i].rc);
		TH_CHECK(rows[i].rc != PAPI_OK || strcmp(out, rows[i].want) == 0);
	}
	th_at(0);
}

/* tly_read_text/tly_read_ll agree with stdio on a real file. */
static void check_read(void)
{
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
	long long want = -1;
	char buf[8];

	if (f) {
		TH_EQ(fscanf(f, "%lld", &want), 1);
		fclose(f);
	}
	TH_EQ(tly_read_ll("/proc/sys/kernel/pid_max", -7), want);
	TH_EQ(tly_read_ll("/nonexistent/file", -7), -7);
	TH_CHECK(tly_read_text("/nonexistent/file", buf, sizeof buf) < 0);
	/* A long file is cut to the buffer and still NUL-terminated. */
	TH_EQ(tly_read_text("/proc/self/maps", buf, sizeof buf), (long)sizeof buf - 1);
	TH_EQ(strlen(buf), sizeof buf - 1);
}

int main(void)
{
	check_cpulist();
	check_size();
	check_kv();
	check_read();
	return th_done();
}

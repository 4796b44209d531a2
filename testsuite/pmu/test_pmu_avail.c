/*
 * test_pmu_avail.c - `papi_avail -a` lists only presets that count here.
 *
 * Runs Tally's papi_avail (path in argv[1]) twice: with -a, every listed
 * preset must count a nonzero value over pmu_loop(10^6) through the API;
 * without -a, every preset marked unavailable must carry a note saying
 * why.  In the QEMU guest that means PAPI_TOT_INS and PAPI_TOT_CYC (and
 * presets derived only from them) are listed, and the cache, TLB and
 * branch presets are not: QEMU's PMU does not implement those events
 * (docs/pmuvm.md).
 */
#include <string.h>

#include "pmu_util.h"
#include "th_spawn.h"

#define MAX_LISTED 128

static int listed_presets(const char *avail, char names[][PAPI_MAX_STR_LEN])
{
	char line[1024];
	char *argv[] = { (char *)avail, "-a", NULL };
	int n = 0;
	pid_t pid;
	FILE *p = th_spawn_read(argv, &pid);

	TH_CHECK(p != NULL);
	if (!p)
		return 0;
	while (fgets(line, sizeof line, p))   /* read to the end: the child never blocks on a full pipe */
		if (n < MAX_LISTED && strncmp(line, "PAPI_", 5) == 0 && sscanf(line, "%127s", names[n]) == 1)
			n++;
	TH_EQ(th_spawn_wait(p, pid), 0);
	return n;
}

/* Every "No" row of the full listing explains itself in parentheses. */
static void check_reasons(const char *avail)
{
	char line[1024], name[128], code[32], av[8];
	char *argv[] = { (char *)avail, NULL };
	int unavailable = 0, explained = 0;
	pid_t pid;
	FILE *p = th_spawn_read(argv, &pid);

	TH_CHECK(p != NULL);
	if (!p)
		return;
	while (fgets(line, sizeof line, p)) {
		if (strncmp(line, "PAPI_", 5) != 0 || sscanf(line, "%127s %31s %7s", name, code, av) != 3 ||
		    strcmp(av, "No") != 0)
			continue;
		unavailable++;
		if (strchr(line, '(') && strchr(line, ')'))
			explained++;
		else
			fprintf(stderr, "no reason given: %s", line);
	}
	TH_EQ(th_spawn_wait(p, pid), 0);
	printf("%d presets unavailable, %d with a reason\n", unavailable, explained);
	TH_CHECK(unavailable > 0);
	TH_EQ(explained, unavailable);
}

static long long count_preset(const char *name)
{
	int set = PAPI_NULL, code;
	long long v = 0;

	TH_EQ(PAPI_event_name_to_code(name, &code), PAPI_OK);
	TH_EQ(PAPI_create_eventset(&set), PAPI_OK);
	TH_EQ(PAPI_add_event(set, code), PAPI_OK);
	TH_EQ(pmu_measure(set, 1000000, &v), PAPI_OK);
	PAPI_cleanup_eventset(set);
	PAPI_destroy_eventset(&set);
	return v;
}

int main(int argc, char **argv)
{
	static char names[MAX_LISTED][PAPI_MAX_STR_LEN];
	int n;

	pmu_require();
	if (argc < 2)
		TH_FATAL("usage: test_pmu_avail <papi_avail>");
	n = listed_presets(argv[1], names);
	printf("papi_avail -a lists %d presets\n", n);
	TH_CHECK(n >= 2);
	int ins = 0, cyc = 0;

	for (int i = 0; i < n; i++) {
		ins |= strcmp(names[i], "PAPI_TOT_INS") == 0;
		cyc |= strcmp(names[i], "PAPI_TOT_CYC") == 0;
	}
	TH_CHECK(ins && cyc);
	for (int i = 0; i < n; i++) {
		long long v = count_preset(names[i]);

		printf("  %-14s %lld over a loop of %lld instructions\n", names[i], v, PMU_LOOP_INS(1000000));
		if (v <= 0)
			fprintf(stderr, "%s is listed as available but counts %lld\n", names[i], v);
		TH_CHECK(v > 0);
	}
	check_reasons(argv[1]);
	PAPI_shutdown();
	return th_done();
}

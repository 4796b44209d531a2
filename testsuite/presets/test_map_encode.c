/*
 * test_map_encode.c - every native of every embedded preset map must be
 * encodable by libpfm4 for every PMU its block names.  Each PMU is checked
 * in a child process that forces libpfm4 onto it (LIBPFM_FORCE_PMU, read by
 * pfm_initialize), so the check needs none of that hardware.  A PMU this
 * libpfm4 was built without (Arm PMUs on an x86 build) is reported as not
 * checkable here; a row that does not encode, whose qualified name is
 * too long for the perf_event component (PAPI_MAX_STR_LEN), or that has
 * more terms than the PMU has counters, fails with its file:line.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perfmon/pfmlib_perf_event.h>

#include "core/preset_maps.h"
#include "core/presets.h"
#include "tharness.h"

#define MAX_ITEMS 8192
#define MAX_PMUS 64
#define NOT_BUILT 3 /* child status: this libpfm4 lacks the PMU */

struct item {
	const char *file;
	int line;
	int nterms; /* terms of the item's row */
	char pmu[PAPI_MIN_STR_LEN];
	char native[PAPI_2MAX_STR_LEN];
};

static struct item items[MAX_ITEMS];
static int nitems;
static char pmus[MAX_PMUS][PAPI_MIN_STR_LEN];
static int npmus;
static const char *cur_file;

static void add_pmu(const char *pmu)
{
	for (int i = 0; i < npmus; i++)
		if (strcmp(pmus[i], pmu) == 0)
			return;
	if (npmus < MAX_PMUS)
		strcpy(pmus[npmus++], pmu);
}

static int collect(void *arg, const struct tly_map_block *blk, const struct tly_map_row *row)
{
	(void)arg;
	for (int b = 0; b < blk->npmus; b++) {
		add_pmu(blk->pmus[b]);
		for (int t = 0; t < row->nterms && nitems < MAX_ITEMS; t++) {
			struct item *it = &items[nitems++];

			it->file = cur_file;
			it->line = row->line;
			it->nterms = row->nterms;
			strcpy(it->pmu, blk->pmus[b]);
			strcpy(it->native, row->natives[t]);
		}
	}
	return PAPI_OK;
}

/* 1 when this libpfm4 has the PMU; *cntrs: its generic + fixed counters. */
static int pmu_built(const char *pmu, int *cntrs)
{
	pfm_pmu_info_t info;
	int p;

	pfm_for_all_pmus(p) {
		memset(&info, 0, sizeof info);
		info.size = sizeof info;
		if (pfm_get_pmu_info(p, &info) == PFM_SUCCESS && strcmp(info.name, pmu) == 0) {
			*cntrs = info.num_cntrs + info.num_fixed_cntrs;
			return 1;
		}
	}
	return 0;
}

static int encode(const char *pmu, const char *native, const char **why)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	char name[PAPI_2MAX_STR_LEN + PAPI_MIN_STR_LEN];
	int rc;

	if (strstr(native, "::"))
		snprintf(name, sizeof name, "%s", native);
	else
		snprintf(name, sizeof name, "%s::%s", pmu, native);
	memset(&attr, 0, sizeof attr);
	memset(&arg, 0, sizeof arg);
	arg.size = sizeof arg;
	arg.attr = &attr;
	rc = pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
	*why = pfm_strerror(rc);
	return rc;
}

/* In the child: the number of natives of `pmu` that fail, or NOT_BUILT. */
static int check_pmu(const char *pmu)
{
	int bad = 0, cntrs = 0;

	setenv("LIBPFM_FORCE_PMU", pmu, 1);
	if (pfm_initialize() != PFM_SUCCESS)
		return NOT_BUILT;
	if (!pmu_built(pmu, &cntrs))
		return NOT_BUILT;
	for (int i = 0; i < nitems; i++) {
		const char *why;

		if (strcmp(items[i].pmu, pmu) != 0)
			continue;
		/* a row needs a counter per term ("perf" reports none: not checked) */
		if (cntrs > 0 && items[i].nterms > cntrs) {
			fprintf(stderr, "%s:%d: %d terms, but %s has %d counters\n", items[i].file,
				items[i].line, items[i].nterms, pmu, cntrs);
			bad++;
		}
		/* the perf_event component takes names shorter than PAPI_MAX_STR_LEN */
		if (strlen(pmu) + 2 + strlen(items[i].native) >= PAPI_MAX_STR_LEN) {
			fprintf(stderr, "%s:%d: %s::%s is longer than %d characters\n", items[i].file,
				items[i].line, pmu, items[i].native, PAPI_MAX_STR_LEN - 1);
			bad++;
		} else if (encode(pmu, items[i].native, &why) != PFM_SUCCESS) {
			fprintf(stderr, "%s:%d: %s::%s does not encode: %s\n", items[i].file,
				items[i].line, pmu, items[i].native, why);
			bad++;
		}
	}
	printf("%-20s %s\n", pmu, bad ? "FAILED" : "all natives encode");
	fflush(stdout);
	return bad ? 1 : 0;
}

static int run_child(const char *pmu)
{
	pid_t pid;
	int status;

	fflush(stdout); /* or the child would print the parent's buffer again */
	pid = fork();
	if (pid == 0)
		_exit(check_pmu(pmu));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int main(void)
{
	int checked = 0;

	for (int m = 0; m < tly_num_preset_maps; m++) {
		cur_file = tly_preset_maps[m].file;
		TH_EQ(tly_map_parse(cur_file, tly_preset_maps[m].text, collect, NULL), PAPI_OK);
	}
	TH_CHECK(nitems > 0 && nitems < MAX_ITEMS);
	for (int i = 0; i < npmus; i++) {
		int rc = run_child(pmus[i]);

		if (rc == NOT_BUILT) {
			printf("%-20s not checkable: this libpfm4 was built without it\n", pmus[i]);
			continue;
		}
		if (rc != 0)
			fprintf(stderr, "PMU %s: natives that do not encode (see above)\n", pmus[i]);
		TH_EQ(rc, 0);
		checked++;
	}
	if (checked == 0)
		TH_SKIP("this libpfm4 knows none of the PMUs the preset maps name");
	return th_done();
}

/*
 * bench_nvtx_cost.c - cost of one NVTX push+pop pair: without any tool,
 * under tally-run with TALLY_NVTX_COUNTERS=0 (time only) and =1 (the
 * thread's counters read at both boundaries), and a push+pop carrying a
 * 16-byte payload (int32 + double, static schema).
 *
 *   bench_nvtx_cost TALLY-RUN      runs the configurations and prints a table
 *   bench_nvtx_cost --child        one measurement (what the parent spawns)
 * Figures are the median of 5 batches of N pairs (ns per pair).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtPayload.h>

#include "th_clock.h"
#include "th_file.h"
#include "th_spawn.h"

#define N 200000
#define BATCHES 5

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v)
{
	qsort(v, BATCHES, sizeof *v, cmp);
	return v[BATCHES / 2];
}

typedef struct { int32_t step; double residual; } pl_t;

static int child(void)
{
	nvtxDomainHandle_t dom = nvtxDomainCreateA("bench");
	nvtxPayloadSchemaEntry_t e[] = {
		{ .type = NVTX_PAYLOAD_ENTRY_TYPE_INT32, .name = "step", .offset = offsetof(pl_t, step) },
		{ .type = NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE, .name = "residual", .offset = offsetof(pl_t, residual) },
	};
	nvtxPayloadSchemaAttr_t a = { .fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES
			| NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME
			| NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE, .name = "pl", .type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC,
			.entries = e, .numEntries = 2, .payloadStaticSize = sizeof(pl_t) };
	uint64_t id = nvtxPayloadSchemaRegister(dom, &a);
	double plain[BATCHES], payload[BATCHES];

	for (int b = 0; b < BATCHES; b++) {
		double t0 = th_now_ns();

		for (int i = 0; i < N; i++) {
			nvtxRangePushA("bench");
			nvtxRangePop();
		}
		plain[b] = (th_now_ns() - t0) / N;
		t0 = th_now_ns();
		for (int i = 0; i < N / 10; i++) {
			pl_t v = { i, 1.0 / (i + 1) };
			nvtxPayloadData_t pd = { id, sizeof v, &v };

			nvtxRangePushPayload(dom, &pd, 1);
			nvtxRangePopPayload(dom, NULL, 0);
		}
		payload[b] = (th_now_ns() - t0) / (N / 10);
	}
	printf("%.1f %.1f %d\n", median(plain), median(payload), id != 0);
	return 0;
}

static int run(char *const argv[], double *plain, double *payload, int *tool)
{
	pid_t pid;
	FILE *p = th_spawn_read(argv, &pid);
	int ok = p && fscanf(p, "%lf %lf %d", plain, payload, tool) == 3;

	if (p)
		ok &= th_spawn_wait(p, pid) == 0;
	return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const struct { const char *label, *env; } cfg[] = {
		{ "no tool", NULL },
		{ "Tally, no counters", "TALLY_NVTX_COUNTERS=0" },
		{ "Tally, counters", "TALLY_NVTX_COUNTERS=1" },
	};
	char dir[] = "/tmp/bench_nvtx_XXXXXX", self[4096], outdir[64];
	ssize_t n;

	if (argc > 1 && !strcmp(argv[1], "--child"))
		return child();
	if (argc < 2 || !mkdtemp(dir) || (n = readlink("/proc/self/exe", self, sizeof self - 1)) < 0) {
		fprintf(stderr, "usage: %s TALLY-RUN\n", argv[0]);
		return 1;
	}
	self[n] = '\0';
	printf("NVTX cost per push+pop pair, median of %d batches (%d plain pairs, %d payload pairs each)\n",
	       BATCHES, N, N / 10);
	printf("%-22s %14s %18s %s\n", "configuration", "push+pop [ns]", "payload pair [ns]", "payload schema");
	for (size_t i = 0; i < sizeof cfg / sizeof *cfg; i++) {
		double plain, payload;
		int tool;
		/* env(1) sets the one variable: no shell sees the paths */
		char *with_tool[] = { "env", (char *)cfg[i].env, argv[1], outdir, "--", self, "--child", NULL };
		char *no_tool[] = { "env", "-u", "NVTX_INJECTION64_PATH", self, "--child", NULL };

		snprintf(outdir, sizeof outdir, "--output-dir=%s", dir);
		if (run(cfg[i].env ? with_tool : no_tool, &plain, &payload, &tool) < 0) {
			fprintf(stderr, "%s: the run failed\n", cfg[i].label);
			return 1;
		}
		printf("%-22s %14.1f %18.1f %s\n", cfg[i].label, plain, payload,
		       tool ? "registered" : "refused (no tool)");
		/* without a tool the schema is refused; with Tally it is kept */
		if ((cfg[i].env != NULL) != (tool != 0)) {
			fprintf(stderr, "unexpected schema registration result\n");
			return 1;
		}
	}
	return th_rm_tree(dir) == 0 ? 0 : 1;
}

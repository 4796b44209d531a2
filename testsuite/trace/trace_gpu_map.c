/*
 * trace_gpu_map.c - the trace's GPU streams without a GPU: synthetic
 * activity records (as CUPTI hands them over: in batches, out of order
 * within a window, with a dropped count) through wrappers/trace/
 * trace_gpu_map.c into an OTF2 archive, with a CPU location holding the
 * launches (a "step" region per step, a tally::cuda_launch metric per
 * launch), as the runtime writes them.  check_trace_gpu.py then checks
 * the archive against the counts printed here.
 *
 * Usage: trace_gpu_map DIR [MAX_EVENTS]   (DIR must not exist)
 */
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace_gpu_map.h"

#define STEPS 3
#define PER_STEP 3000   /* launches per step: over the window, so it is written in parts */

static uint32_t nstr;

static OTF2_StringRef str(void *w, const char *s)
{
	OTF2_GlobalDefWriter_WriteString(w, nstr, s);
	return nstr++;
}

static OTF2_FlushType pre_flush(void *u, OTF2_FileType f, OTF2_LocationRef l, void *c, bool fin)
{
	(void)u, (void)f, (void)l, (void)c, (void)fin;
	return OTF2_FLUSH;
}

static const OTF2_FlushCallbacks flush_cb = { .otf2_pre_flush = pre_flush };

/* Launch k: stream k % 3 on device (k % 3 == 2); kernel, copy or memset. */
static tally_gpu_activity_t rec(uint32_t k, uint64_t launch_ts)
{
	static const char *const kn[] = { "void at::native::vectorized_elementwise_kernel<4>(int)", "gemm_kernel",
					  "memcpy HtoD", "memset" };
	int kind = k % 7 == 5 ? TALLY_GPU_ACT_MEMCPY : k % 11 == 3 ? TALLY_GPU_ACT_MEMSET : TALLY_GPU_ACT_KERNEL;
	uint32_t s = k % 3;

	return (tally_gpu_activity_t){ kind, s == 2, 1, 7 + s, k + 1, launch_ts + 5000 + 10ull * k,
				       launch_ts + 5000 + 10ull * k + 8, kind == TALLY_GPU_ACT_KERNEL ? 0 : 64 + k,
				       kind == TALLY_GPU_ACT_KERNEL ? kn[k % 2] : kn[kind == TALLY_GPU_ACT_MEMCPY ? 2 : 3] };
}

int main(int argc, char **argv)
{
	int64_t maxev = argc > 2 ? atoll(argv[2]) : 0, rows[16 * TLY_TL_FIELDS];
	tally_gpu_activity_t *all = malloc(STEPS * PER_STEP * sizeof *all);
	OTF2_Archive *ar;
	OTF2_EvtWriter *cpu;
	struct tly_tgpu g;
	uint64_t t = 1000000, gid[16];
	int nk = 0, nrows;

	if (argc < 2 || !all) {
		fprintf(stderr, "usage: trace_gpu_map DIR [MAX_EVENTS]\n");
		return 2;
	}
	ar = OTF2_Archive_Open(argv[1], "traces", OTF2_FILEMODE_WRITE, 1 << 20, 4 << 20, OTF2_SUBSTRATE_POSIX,
			       OTF2_COMPRESSION_NONE);
	if (!ar || OTF2_Archive_SetSerialCollectiveCallbacks(ar) != OTF2_SUCCESS ||
	    OTF2_Archive_SetFlushCallbacks(ar, &flush_cb, NULL) != OTF2_SUCCESS ||
	    OTF2_Archive_OpenEvtFiles(ar) != OTF2_SUCCESS) {
		fprintf(stderr, "trace_gpu_map: cannot open an archive in %s\n", argv[1]);
		return 1;
	}
	cpu = OTF2_Archive_GetEvtWriter(ar, 0);
	tly_tgpu_init(&g, ar, TLY_TGPU_LOC, maxev);
	for (uint32_t st = 0, k = 0; st < STEPS; st++) {
		OTF2_EvtWriter_Enter(cpu, NULL, t++, 0);
		for (int i = 0; i < PER_STEP; i++, k++) {
			OTF2_Type ty = OTF2_TYPE_UINT64;
			OTF2_MetricValue v = { .unsigned_int = k + 1 };

			OTF2_EvtWriter_Metric(cpu, NULL, t, TLY_TGPU_METRIC_CLASS(0), 1, &ty, &v);
			all[k] = rec(k, t);
			nk += all[k].kind == TALLY_GPU_ACT_KERNEL;
			t += 10;
		}
		OTF2_EvtWriter_Leave(cpu, NULL, t++, 0);
	}
	/* handed over in batches of 250, each reversed (out of order), with 5 dropped */
	for (size_t at = 0; at < STEPS * PER_STEP; at += 250) {
		tally_gpu_activity_t b[250];

		for (int i = 0; i < 250; i++)
			b[i] = all[at + 249 - (size_t)i];
		tly_tgpu_add(&g, b, 250, at == 500 ? 5 : 0);
	}
	nrows = tly_tgpu_close(&g, rows, 16);
	OTF2_Archive_CloseEvtWriter(ar, cpu);
	OTF2_Archive_CloseEvtFiles(ar);
	OTF2_Archive_OpenDefFiles(ar);
	for (int i = 0; i < g.nnames; i++)
		gid[i] = 1 + (uint64_t)i;   /* region 0 is "step" */
	tly_tgpu_local_defs(&g, gid, (const int64_t[4]){ 0, 0, (int64_t)t, 0 });
	OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(ar, 0);
	OTF2_Archive_CloseDefWriter(ar, dw);
	OTF2_Archive_CloseDefFiles(ar);

	OTF2_GlobalDefWriter *w = OTF2_Archive_GetGlobalDefWriter(ar);
	OTF2_StringRef prop;

	OTF2_GlobalDefWriter_WriteClockProperties(w, 1000000000, 0, t + 1000000, 0);
	OTF2_GlobalDefWriter_WriteSystemTreeNode(w, 0, str(w, "job"), str(w, "machine"), OTF2_UNDEFINED_SYSTEM_TREE_NODE);
	OTF2_GlobalDefWriter_WriteLocationGroup(w, 0, str(w, "rank 0"), OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
						OTF2_UNDEFINED_LOCATION_GROUP);
	OTF2_GlobalDefWriter_WriteLocation(w, 0, str(w, "rank 0 thread 0"), OTF2_LOCATION_TYPE_CPU_THREAD,
					   2 + STEPS * (PER_STEP + 2), 0);
	OTF2_GlobalDefWriter_WriteRegion(w, 0, str(w, "step"), str(w, "step"), str(w, "step"), OTF2_REGION_ROLE_CODE,
					 OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, str(w, ""), 0, 0);
	tly_tgpu_global_regions(w, str, w, g.names, g.nnames, 1);
	prop = str(w, "tally::dropped_events");
	tly_tgpu_global_locations(w, str, w, rows, nrows, 1, prop);
	tly_tgpu_global_metric(w, str, w, 0);
	OTF2_Archive_CloseGlobalDefWriter(ar, w);
	OTF2_Archive_Close(ar);
	printf("STREAMS %d\nKERNELS %d\nRECORDS %d\nCUPTI_DROPPED %llu\n", nrows, nk, STEPS * PER_STEP,
	       (unsigned long long)g.cupti_dropped);
	for (int i = 0; i < nrows; i++)
		printf("DROPPED %lld %lld\n", (long long)rows[i * TLY_TL_FIELDS + TLY_TL_ID],
		       (long long)rows[i * TLY_TL_FIELDS + TLY_TL_DROP]);
	tly_tgpu_free(&g);
	free(all);
	return 0;
}

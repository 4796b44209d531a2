/*
 * test_gpu_host.c - GPU metric enumeration, the on-disk catalog cache and
 * pass counting through the Profiler Host API, for a chip name, without a
 * GPU (runs in CI where libcupti is installed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/types.h>

#include "tharness.h"
#include "th_file.h"
#include "tally.h"
#include "components/cuda/common/cuda_internal.h"

#define CHIP "GH100"

/* Lists whose pass counts the host API decides; rows carry their line. */
static const struct {
	int line;
	int n;
	const char *m[12];
	int min_passes, max_passes;
} lists[] = {
	{ __LINE__, 3, { "smsp__inst_executed.sum", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
			 "dram__bytes_read.sum" }, 1, 2 },
	{ __LINE__, 1, { "sm__throughput.avg.pct_of_peak_sustained_elapsed" }, 2, 64 },
};

static void cache_roundtrip(const char *dir)
{
	const struct tly_cu_catalog *c;
	char path[1024];

	setenv("XDG_CACHE_HOME", dir, 1);
	c = tly_cu_catalog_get(CHIP);
	TH_CHECK(c != NULL);
	TH_CHECK(c->n > 1000);
	printf("%s: %d base metrics, %d domains, %.3f s (%s)\n", CHIP, c->n, c->ndom, c->seconds,
	       c->from_cache ? "cache" : "host API");
	tly_cu_cache_dir(path, sizeof path);
	TH_CHECK(strstr(path, dir) == path);
}

int main(void)
{
	char dir[] = "/tmp/tally-gpu-host-XXXXXX";
	const char *why = "";
	int dev, m, v, n1, n2;
	tally_gpu_event_t id;
	tally_gpu_event_info_t info = { .size = sizeof info };

	if (tly_cu_discover(&why) != PAPI_OK) {
		printf("SKIP: libcupti not loadable: %s\n", why);
		return 77;
	}
	printf("GPU discovery: %s\n", why[0] ? why : "driver present");
	TH_CHECK(mkdtemp(dir) != NULL);
	cache_roundtrip(dir);
	n1 = tly_cu_catalog_get(CHIP)->n;
	/* A second process-wide load reads the file the first one wrote. */
	tly_cu_catalog_free_all();
	TH_CHECK(tly_cu_catalog_get(CHIP) != NULL);
	TH_CHECK(tly_cu_catalog_get(CHIP)->from_cache == 1);
	n2 = tly_cu_catalog_get(CHIP)->n;
	TH_CHECK(n1 == n2);
	TH_CHECK(tally_gpu_open_chip(CHIP, &dev) == PAPI_OK);
	TH_CHECK(tally_gpu_event_id(dev, "smsp__inst_executed.sum", &id) == PAPI_OK);
	TH_CHECK(tally_gpu_event_info(dev, id, &info) == PAPI_OK);
	TH_CHECK(strcmp(info.name, "smsp__inst_executed.sum") == 0);
	TH_CHECK(strcmp(info.domain, "smsp") == 0);
	TH_CHECK(info.category == TALLY_GPU_COUNTER);
	TH_CHECK(tally_gpu_event_id(dev, "no_such__metric.sum", &id) == PAPI_ENOEVNT);
	TH_CHECK(tly_cu_catalog_find(tly_cu_catalog_get(CHIP), "smsp__inst_executed.bogus", &m, &v) != 0);
	for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
		struct tly_cu_config cfg;

		TH_CHECK(tly_cu_config_build(CHIP, NULL, lists[i].m, lists[i].n, &cfg) == PAPI_OK);
		printf("line %d: %zu passes\n", lists[i].line, cfg.passes);
		TH_CHECK((int)cfg.passes >= lists[i].min_passes && (int)cfg.passes <= lists[i].max_passes);
		tly_cu_config_free(&cfg);
	}
	{
		const char *bad[] = { "no_such__metric.sum" };
		struct tly_cu_config cfg;

		TH_CHECK(tly_cu_config_build(CHIP, NULL, bad, 1, &cfg) == PAPI_ENOEVNT);
	}
	TH_CHECK(th_rm_tree(dir) == 0);
	return th_done();
}

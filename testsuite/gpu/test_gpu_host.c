/*
 * test_gpu_host.c - GPU metric enumeration, the on-disk catalog cache and
 * pass counting through the Profiler Host API, for a chip name, without a
 * GPU (runs in CI where libcupti is installed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "tharness.h"
#include "th_file.h"
#include "tally.h"
#include "components/component.h"
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

/* FNV-1a over every string of the catalog, in order: two loads that differ
 * in one byte of one description or submetric differ here. */
static unsigned long long digest(const struct tly_cu_catalog *c)
{
	unsigned long long h = 1469598103934665603ULL;

	for (int i = 0; i < c->n; i++) {
		const struct tly_cu_metric *m = &c->m[i];
		const char *f[4] = { m->name, m->desc, m->hw, m->unit };

		for (int k = 0; k < 4 + m->nsub; k++)
			for (const char *p = k < 4 ? f[k] : m->sub[k - 4];; p++) {
				h = (h ^ (unsigned char)*p) * 1099511628211ULL;
				if (!*p)
					break;
			}
		h = (h ^ (unsigned)m->type) * 1099511628211ULL;
	}
	return h;
}

static void cache_path_of(char *buf, size_t len)
{
	char dir[768];
	uint32_t v = 0;

	tly_cu_cache_dir(dir, sizeof dir);
	tly_cu_libs()->pti->cuptiGetVersion(&v);
	snprintf(buf, len, "%s/cuda-%s-cupti%u.catalog", dir, CHIP, (unsigned)v);
}

/* A cache file cut short is not used: the host API is read again, the
 * catalog is the same and the file is whole again. */
static void truncated_cache(unsigned long long want)
{
	char path[1100];
	struct stat st;
	off_t size;

	cache_path_of(path, sizeof path);
	TH_CHECK(stat(path, &st) == 0);
	size = st.st_size;
	TH_CHECK(truncate(path, size - 100) == 0);
	tly_cu_catalog_free_all();
	TH_CHECK(tly_cu_catalog_get(CHIP) != NULL);
	TH_CHECK(tly_cu_catalog_get(CHIP)->from_cache == 0);
	TH_CHECK(digest(tly_cu_catalog_get(CHIP)) == want);
	TH_CHECK(stat(path, &st) == 0 && st.st_size == size);
}

/* Counting a list's passes leaves its config as the spare: the build that
 * follows for the same list takes it (no host object made), and its image
 * is the one a fresh build makes. */
static void spare_config(void)
{
	const char *l[] = { "smsp__inst_executed.sum", "dram__bytes_read.sum" };
	const char *other[] = { "smsp__inst_executed.sum" };
	struct tly_cu_config a, b;
	unsigned long n0 = tly_cu_config_built();
	size_t p = tly_cu_config_passes(CHIP, NULL, l, 2);

	TH_CHECK(p >= 1);
	TH_CHECK(tly_cu_config_built() == n0 + 1);
	TH_CHECK(tly_cu_config_passes(CHIP, NULL, l, 2) == p);   /* from the spare */
	TH_CHECK(tly_cu_config_built() == n0 + 1);
	TH_CHECK(tly_cu_config_build(CHIP, NULL, l, 2, &a) == PAPI_OK);
	TH_CHECK(tly_cu_config_built() == n0 + 1);
	TH_CHECK(tly_cu_config_build(CHIP, NULL, l, 2, &b) == PAPI_OK);   /* the spare is gone */
	TH_CHECK(tly_cu_config_built() == n0 + 2);
	TH_CHECK(a.passes == p && b.passes == p);
	TH_CHECK(a.size == b.size && a.size > 0 && memcmp(a.image, b.image, a.size) == 0);
	tly_cu_config_free(&a);
	tly_cu_config_free(&b);
	TH_CHECK(tly_cu_config_passes(CHIP, NULL, l, 2) == p);   /* a new spare */
	TH_CHECK(tly_cu_config_build(CHIP, NULL, other, 1, &a) == PAPI_OK);   /* another list: built */
	TH_CHECK(tly_cu_config_built() == n0 + 4);
	tly_cu_config_free(&a);
	tly_cu_config_spare_drop();
}

/* Every variant of every metric of the chip as an event id: the id names
 * that variant, its name gives the same id back, and the metric and
 * variant come out of it; ids past a metric's variants or above the
 * metric field are refused.  Metrics with more than 255 variants carried
 * into the metric field of 8-bit ids (issue 38.1). */
static void ids_roundtrip(int dev)
{
	const struct tly_cu_catalog *c = tly_cu_catalog_get(CHIP);
	tally_gpu_event_info_t info = { .size = sizeof info };
	long n = 0, wide = 0, maxsub = 0;
	char want[TALLY_GPU_NAME_LEN];
	tally_gpu_event_t base, id, back;
	int bad = 0;

	for (int m = 0; m < c->n && bad < 5; m++) {
		if (!c->m[m].nsub)
			continue;
		tly_cu_full_name(c, m, tly_cu_default_variant(&c->m[m]), want, sizeof want);
		TH_CHECK(tally_gpu_event_id(dev, want, &base) == PAPI_OK);
		wide += c->m[m].nsub > 255;
		maxsub = c->m[m].nsub > maxsub ? c->m[m].nsub : maxsub;
		for (int v = 1; v <= c->m[m].nsub && bad < 5; v++, n++) {
			int mm, vv;

			tly_cu_full_name(c, m, v, want, sizeof want);
			if (tally_gpu_event_variant(dev, base, v - 1, &id) != PAPI_OK ||
			    tally_gpu_event_info(dev, id, &info) != PAPI_OK || strcmp(info.name, want) ||
			    tally_gpu_event_id(dev, want, &back) != PAPI_OK || back != id ||
			    tly_cu_evid_split(c, id, &mm, &vv) != 0 || mm != m || vv != v) {
				printf("id of %s (metric %d, variant %d): %#llx does not round-trip\n", want, m, v,
				       (unsigned long long)id);
				bad++;
			}
		}
		TH_CHECK(tally_gpu_event_variant(dev, base, c->m[m].nsub, &id) == PAPI_EINVAL);
		TH_CHECK(tally_gpu_event_info(dev, tly_cu_evid(m, c->m[m].nsub + 1), &info) == PAPI_ENOEVNT);
	}
	TH_EQ(bad, 0);
	TH_CHECK(tally_gpu_event_info(dev, tly_cu_evid(c->n, 1), &info) == PAPI_ENOEVNT);
	TH_CHECK(tally_gpu_event_info(dev, base | (1ULL << 40), &info) == PAPI_ENOEVNT);
	printf("%s: %ld event ids round-trip; %ld metrics have more than 255 variants (most: %ld)\n", CHIP, n,
	       wide, maxsub);
}

/* The cuda component's qualifiers of every metric of the chip (host-only
 * device dev): the walk ends after the metric's variants less the one the
 * event's own name carries (the default: same name, so the core's table
 * gave back the event's own code and papi_native_avail never ended, issue
 * 38.1), in order, none named as the event. */
static void component_qualifiers(int dev)
{
	const struct tly_cu_catalog *c = tly_cu_catalog_get(CHIP);
	const struct tly_component *cu = NULL;
	char base[TALLY_GPU_NAME_LEN + 32], name[TALLY_GPU_NAME_LEN + 32], prev[TALLY_GPU_NAME_LEN + 32];
	long bad = 0, total = 0;

	for (int i = 0; i < tly_num_components; i++)
		if (!strcmp(tly_components[i]->name, "cuda"))
			cu = tly_components[i];
	TH_CHECK(cu != NULL);
	if (!cu)
		return;
	for (int m = 0; m < c->n && bad < 5; m++) {
		uint64_t tok = ((uint64_t)dev << TLY_CU_DEV_SHIFT) | tly_cu_evid(m, 0);
		int n = 0, last = 0, want = c->m[m].nsub > 0 ? c->m[m].nsub - 1 : 0;

		TH_CHECK(cu->ntv_name(tok, base, sizeof base) == PAPI_OK);
		prev[0] = '\0';
		while (cu->ntv_enum(&tok, PAPI_NTV_ENUM_UMASKS) == PAPI_OK && n <= want) {
			n++;
			if (cu->ntv_name(tok, name, sizeof name) != PAPI_OK || !strcmp(name, base) ||
			    tly_cu_evid_variant(tok) <= last || tly_cu_evid_metric(tok) != m) {
				printf("metric %d (%s): qualifier %d '%s' (before it '%s')\n", m, base, n, name, prev);
				bad++;
				break;
			}
			snprintf(prev, sizeof prev, "%s", name);
			last = tly_cu_evid_variant(tok);
		}
		if (n != want && !bad++)
			printf("metric %d (%s): %d qualifiers, %d variants\n", m, base, n, c->m[m].nsub);
		total += n;
	}
	TH_EQ(bad, 0);
	printf("%s: the cuda component's qualifiers: %ld, each walk ended\n", CHIP, total);
}

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
	unsigned long long d1;
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
	d1 = digest(tly_cu_catalog_get(CHIP));
	TH_CHECK(tly_cu_catalog_get(CHIP)->from_cache == 0);
	/* A second process-wide load reads the file the first one wrote, and
	 * holds the same strings, byte for byte. */
	tly_cu_catalog_free_all();
	TH_CHECK(tly_cu_catalog_get(CHIP) != NULL);
	TH_CHECK(tly_cu_catalog_get(CHIP)->from_cache == 1);
	n2 = tly_cu_catalog_get(CHIP)->n;
	TH_CHECK(n1 == n2);
	TH_CHECK(digest(tly_cu_catalog_get(CHIP)) == d1);
	truncated_cache(d1);
	spare_config();
	TH_CHECK(tally_gpu_open_chip(CHIP, &dev) == PAPI_OK);
	TH_CHECK(tally_gpu_event_id(dev, "smsp__inst_executed.sum", &id) == PAPI_OK);
	TH_CHECK(tally_gpu_event_info(dev, id, &info) == PAPI_OK);
	TH_CHECK(strcmp(info.name, "smsp__inst_executed.sum") == 0);
	TH_CHECK(strcmp(info.domain, "smsp") == 0);
	TH_CHECK(info.category == TALLY_GPU_COUNTER);
	TH_CHECK(tally_gpu_event_id(dev, "no_such__metric.sum", &id) == PAPI_ENOEVNT);
	ids_roundtrip(dev);
	component_qualifiers(dev);
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

/*
 * test_mem_hierarchy.c - PAPI_get_hardware_info()->mem_hierarchy against
 * /sys/devices/system/cpu/cpu0/cache/index*, one table row per cache.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* realpath, dladdr, clock_gettime, PATH_MAX */
#endif
#include <stdio.h>
#include <string.h>

#include "papi.h"
#include "tharness.h"
#include "truth.h"

#define CACHE "/sys/devices/system/cpu/cpu0/cache/index%d/%s"

static long long idx_ll(int i, const char *attr)
{
	char path[160];

	snprintf(path, sizeof path, CACHE, i, attr);
	return truth_ll(path, -1);
}

/* Size is written "48K"; sets*ways*partition*line is the same size again. */
static long long idx_size(int i)
{
	char path[160], buf[64], *end;
	long long v;

	snprintf(path, sizeof path, CACHE, i, "size");
	if (truth_read(path, buf, sizeof buf) <= 0)
		return -1;
	v = strtoll(buf, &end, 10);
	return *end == 'K' ? v * 1024 : *end == 'M' ? v * 1024 * 1024 : v;
}

static int idx_type(int i)
{
	char path[160], buf[64];

	snprintf(path, sizeof path, CACHE, i, "type");
	if (truth_read(path, buf, sizeof buf) <= 0)
		return -1;
	if (strncmp(buf, "Data", 4) == 0)
		return PAPI_MH_TYPE_DATA;
	if (strncmp(buf, "Instruction", 11) == 0)
		return PAPI_MH_TYPE_INST;
	return strncmp(buf, "Unified", 7) == 0 ? PAPI_MH_TYPE_UNIFIED : -1;
}

static const PAPI_mh_cache_info_t *find_cache(const PAPI_mh_info_t *mh, int level, int type)
{
	if (level < 1 || level > PAPI_MAX_MEM_HIERARCHY_LEVELS)
		return NULL;
	for (int s = 0; s < PAPI_MH_MAX_LEVELS; s++) {
		const PAPI_mh_cache_info_t *c = &mh->level[level - 1].cache[s];

		if (c->type != PAPI_MH_TYPE_EMPTY && PAPI_MH_CACHE_TYPE(c->type) == type)
			return c;
	}
	return NULL;
}

static int count_caches(const PAPI_mh_info_t *mh)
{
	int n = 0;

	for (int l = 0; l < PAPI_MAX_MEM_HIERARCHY_LEVELS; l++)
		for (int s = 0; s < PAPI_MH_MAX_LEVELS; s++)
			n += mh->level[l].cache[s].type != PAPI_MH_TYPE_EMPTY;
	return n;
}

/* Every cache /sys lists is reported with its exact geometry. */
static int check_sys_caches(const PAPI_mh_info_t *mh, int *max_level)
{
	int n = 0;

	for (int i = 0; idx_ll(i, "level") > 0; i++, n++) {
		int level = (int)idx_ll(i, "level");
		long long size = idx_size(i), line = idx_ll(i, "coherency_line_size");
		long long sets = idx_ll(i, "number_of_sets"), ways = idx_ll(i, "ways_of_associativity");
		long long part = idx_ll(i, "physical_line_partition");
		const PAPI_mh_cache_info_t *c = find_cache(mh, level, idx_type(i));

		fprintf(stderr, "index%d: L%d type %d size %lld line %lld\n", i, level, idx_type(i), size, line);
		if (level > *max_level)
			*max_level = level;
		TH_CHECK(c != NULL);
		if (!c)
			continue;
		TH_EQ(c->size, size);
		TH_EQ(c->line_size, line);
		TH_EQ(c->num_lines, size / line);
		if (sets > 0 && ways > 0)
			TH_EQ((long long)c->num_lines, sets * ways * (part > 0 ? part : 1));
		TH_EQ(c->associativity, ways);
	}
	return n;
}

/* TLBs are optional, but what is reported must be well formed. */
static void check_tlbs(const PAPI_mh_info_t *mh)
{
	for (int l = 0; l < PAPI_MAX_MEM_HIERARCHY_LEVELS; l++) {
		for (int s = 0; s < PAPI_MH_MAX_LEVELS; s++) {
			const PAPI_mh_tlb_info_t *t = &mh->level[l].tlb[s];

			if (t->type == PAPI_MH_TYPE_EMPTY)
				continue;
			TH_CHECK(t->type & PAPI_MH_TYPE_TLB);
			TH_CHECK(t->num_entries > 0 && t->page_size > 0);
		}
	}
}

int main(void)
{
	const PAPI_hw_info_t *hw;
	int max_level = 0, n;

	if (idx_ll(0, "level") <= 0)
		TH_SKIP("this kernel exposes no /sys/devices/system/cpu/cpu0/cache");
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		TH_FATAL("PAPI_library_init failed");
	hw = PAPI_get_hardware_info();
	TH_CHECK(hw != NULL);
	if (!hw)
		return th_done();
	n = check_sys_caches(&hw->mem_hierarchy, &max_level);
	TH_EQ(hw->mem_hierarchy.levels, max_level);
	TH_EQ(count_caches(&hw->mem_hierarchy), n); /* nothing invented */
	check_tlbs(&hw->mem_hierarchy);
	PAPI_shutdown();
	return th_done();
}

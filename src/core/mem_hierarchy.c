#include "core/mem_hierarchy.h"

#include <stdio.h>
#include <string.h>

#include "core/procfs.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#define CACHE_DIR "/sys/devices/system/cpu/cpu0/cache"
#define MAX_CACHE_INDEX 32

static int cache_type(const char *s)
{
	if (strcmp(s, "Data") == 0)
		return PAPI_MH_TYPE_DATA;
	if (strcmp(s, "Instruction") == 0)
		return PAPI_MH_TYPE_INST;
	if (strcmp(s, "Unified") == 0)
		return PAPI_MH_TYPE_UNIFIED;
	return PAPI_MH_TYPE_EMPTY;
}

/* Policies only some kernels (mostly arm64 from DT/ACPI PPTT) expose. */
static int cache_policies(const char *idx)
{
	char path[256], buf[64];
	int flags = 0;

	snprintf(path, sizeof path, "%s/write_policy", idx);
	if (tly_read_line(path, buf, sizeof buf) == PAPI_OK)
		flags |= strcmp(buf, "WriteBack") == 0 ? PAPI_MH_TYPE_WB : PAPI_MH_TYPE_WT;
	snprintf(path, sizeof path, "%s/allocation_policy", idx);
	if (tly_read_line(path, buf, sizeof buf) == PAPI_OK) {
		if (strcmp(buf, "ReadAllocate") == 0)
			flags |= PAPI_MH_TYPE_RD_ALLOC;
		else if (strcmp(buf, "WriteAllocate") == 0)
			flags |= PAPI_MH_TYPE_WR_ALLOC;
		else if (strcmp(buf, "ReadWriteAllocate") == 0)
			flags |= PAPI_MH_TYPE_RW_ALLOC;
	}
	return flags;
}

/* Reads cache index `i`; returns its level (0 when the index is absent). */
static int read_cache(int i, PAPI_mh_cache_info_t *c)
{
	char idx[128], path[256], buf[64];
	long long size;
	int level, type;

	snprintf(idx, sizeof idx, "%s/index%d", CACHE_DIR, i);
	snprintf(path, sizeof path, "%s/level", idx);
	level = (int)tly_read_ll(path, 0);
	snprintf(path, sizeof path, "%s/type", idx);
	if (level <= 0 || tly_read_line(path, buf, sizeof buf) != PAPI_OK)
		return 0;
	type = cache_type(buf);
	snprintf(path, sizeof path, "%s/size", idx);
	if (type == PAPI_MH_TYPE_EMPTY || tly_read_line(path, buf, sizeof buf) != PAPI_OK)
		return 0;
	size = tly_parse_size(buf);
	memset(c, 0, sizeof *c);
	c->type = type | cache_policies(idx);
	c->size = size > 0 ? (int)size : 0;
	snprintf(path, sizeof path, "%s/coherency_line_size", idx);
	c->line_size = (int)tly_read_ll(path, 0);
	c->num_lines = c->line_size > 0 ? c->size / c->line_size : 0;
	snprintf(path, sizeof path, "%s/ways_of_associativity", idx);
	c->associativity = (int)tly_read_ll(path, 0);
	return level;
}

static void add_cache(PAPI_mh_info_t *mh, int level, const PAPI_mh_cache_info_t *c)
{
	PAPI_mh_level_t *l;

	if (level > PAPI_MAX_MEM_HIERARCHY_LEVELS)
		return;
	l = &mh->level[level - 1];
	for (int s = 0; s < PAPI_MH_MAX_LEVELS; s++) {
		if (l->cache[s].type == PAPI_MH_TYPE_EMPTY) {
			l->cache[s] = *c;
			break;
		}
	}
	if (level > mh->levels)
		mh->levels = level;
}

#if defined(__x86_64__)
static void add_tlb(PAPI_mh_info_t *mh, int level, int type, int entries, int page_kb, int assoc)
{
	PAPI_mh_level_t *l;

	if (level < 1 || level > PAPI_MAX_MEM_HIERARCHY_LEVELS)
		return;
	l = &mh->level[level - 1];
	for (int s = 0; s < PAPI_MH_MAX_LEVELS; s++) {
		if (l->tlb[s].type == PAPI_MH_TYPE_EMPTY) {
			l->tlb[s].type = PAPI_MH_TYPE_TLB | type;
			l->tlb[s].num_entries = entries;
			l->tlb[s].page_size = page_kb;
			l->tlb[s].associativity = assoc;
			break;
		}
	}
}

/*
 * Intel's deterministic address-translation leaf (0x18) describes each
 * TLB exactly; one PAPI entry per page size it serves.  Other vendors and
 * older parts leave the TLBs empty rather than decoding guessed tables.
 */
static void cpuid_tlbs(PAPI_mh_info_t *mh)
{
	static const int page_kb[4] = { 4, 2048, 4096, 1048576 };
	unsigned int a, b, c, d, max;

	if (__get_cpuid_max(0, NULL) < 0x18)
		return;
	__cpuid_count(0x18, 0, max, b, c, d);
	for (unsigned int sub = 0; sub <= max && sub < 64; sub++) {
		int type, level, ways;

		__cpuid_count(0x18, sub, a, b, c, d);
		switch (d & 0x1f) {
		case 1: case 4: case 5: type = PAPI_MH_TYPE_DATA; break;
		case 2: type = PAPI_MH_TYPE_INST; break;
		case 3: type = PAPI_MH_TYPE_UNIFIED; break;
		default: continue;
		}
		level = (int)((d >> 5) & 0x7);
		ways = (int)(b >> 16);
		for (int p = 0; p < 4; p++)
			if (b & (1u << p))
				add_tlb(mh, level, type, ways * (int)c, page_kb[p],
					(d & 0x100) ? ways * (int)c : ways);
	}
}
#endif

void tly_mh_fill(PAPI_mh_info_t *mh)
{
	memset(mh, 0, sizeof *mh);
	for (int i = 0; i < MAX_CACHE_INDEX; i++) {
		PAPI_mh_cache_info_t c;
		char path[128];
		int level;

		snprintf(path, sizeof path, "%s/index%d/level", CACHE_DIR, i);
		if (tly_read_ll(path, -1) < 0)
			break;
		level = read_cache(i, &c);
		if (level > 0)
			add_cache(mh, level, &c);
	}
#if defined(__x86_64__)
	cpuid_tlbs(mh);
#endif
}

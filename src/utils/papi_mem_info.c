/*
 * papi_mem_info - the memory hierarchy PAPI_get_hardware_info reports:
 * TLBs and caches, level by level.
 *
 *   papi_mem_info [-h]
 */
#include "util_common.h"

#include <limits.h>
#include <string.h>

static const char *mh_kind(int type)
{
	switch (PAPI_MH_CACHE_TYPE(type)) {
	case PAPI_MH_TYPE_INST: return "Instruction";
	case PAPI_MH_TYPE_DATA: return "Data";
	case PAPI_MH_TYPE_UNIFIED: return "Unified";
	case PAPI_MH_TYPE_VECTOR: return "Vector";
	case PAPI_MH_TYPE_TRACE: return "Trace";
	default: return "Unknown";
	}
}

static void print_assoc(int assoc)
{
	if (assoc == SHRT_MAX)
		printf("fully associative");
	else if (assoc > 0)
		printf("%d-way", assoc);
	else
		printf("associativity unknown");
}

static void print_size(int bytes)
{
	if (bytes > 0 && bytes % 1024 == 0)
		printf("%d KB", bytes / 1024);
	else
		printf("%d B", bytes);
}

static void print_policies(int type)
{
	if (PAPI_MH_CACHE_WRITE_POLICY(type) == PAPI_MH_TYPE_WB)
		printf(", write-back");
	if (PAPI_MH_CACHE_REPLACEMENT_POLICY(type) == PAPI_MH_TYPE_LRU)
		printf(", LRU");
	else if (PAPI_MH_CACHE_REPLACEMENT_POLICY(type) == PAPI_MH_TYPE_PSEUDO_LRU)
		printf(", pseudo-LRU");
	if (type & PAPI_MH_TYPE_WR_ALLOC)
		printf(", write-allocate");
}

static int print_tlbs(const PAPI_mh_info_t *mh)
{
	int n = 0;

	printf("TLBs (a level may list one TLB per page size):\n");
	for (int l = 0; l < mh->levels && l < PAPI_MAX_MEM_HIERARCHY_LEVELS; l++) {
		for (int j = 0; j < PAPI_MH_MAX_LEVELS; j++) {
			const PAPI_mh_tlb_info_t *t = &mh->level[l].tlb[j];

			if (t->type == PAPI_MH_TYPE_EMPTY)
				continue;
			printf("  L%d %-11s TLB   : %d entries, page ", l + 1, mh_kind(t->type),
			       t->num_entries);
			print_size(t->page_size);
			printf(", ");
			print_assoc(t->associativity);
			printf("\n");
			n++;
		}
	}
	if (n == 0)
		printf("  (none reported)\n");
	return n;
}

static int print_caches(const PAPI_mh_info_t *mh)
{
	int n = 0;

	printf("Caches:\n");
	for (int l = 0; l < mh->levels && l < PAPI_MAX_MEM_HIERARCHY_LEVELS; l++) {
		for (int j = 0; j < PAPI_MH_MAX_LEVELS; j++) {
			const PAPI_mh_cache_info_t *c = &mh->level[l].cache[j];

			if (c->type == PAPI_MH_TYPE_EMPTY)
				continue;
			printf("  L%d %-11s cache : ", l + 1, mh_kind(c->type));
			print_size(c->size);
			printf(", line %d B, %d lines, ", c->line_size, c->num_lines);
			print_assoc(c->associativity);
			print_policies(c->type);
			printf("\n");
			n++;
		}
	}
	if (n == 0)
		printf("  (none reported)\n");
	return n;
}

int main(int argc, char **argv)
{
	const char *prog = "papi_mem_info";
	const PAPI_hw_info_t *hw;
	int ncaches;

	for (int i = 1; i < argc; i++) {
		if (util_opt_is(argv[i], "-h", "--help")) {
			printf("Usage: %s\nPrint the TLBs and caches of each memory level.\n", prog);
			return 0;
		}
		return util_bad_option(prog, argv[i]);
	}
	util_init(prog);
	hw = PAPI_get_hardware_info();
	if (!hw) {
		PAPI_shutdown();
		return util_error(prog, "PAPI_get_hardware_info returned nothing");
	}
	printf("Memory cache and TLB hierarchy (%s).\n", hw->model_string);
	util_rule(stdout, '-');
	printf("Levels reported: %d\n", hw->mem_hierarchy.levels);
	print_tlbs(&hw->mem_hierarchy);
	ncaches = print_caches(&hw->mem_hierarchy);
	util_rule(stdout, '-');
	PAPI_shutdown();
	return ncaches > 0 ? 0 : util_error(prog, "no cache information available");
}

/*
 * papi_types.h - the types of the PAPI C API (options, hardware and memory
 * descriptions, event information).  Part of papi.h, which includes it
 * after the constants these types use: include papi.h, not this file.
 */
#ifndef TALLY_PAPI_TYPES_H
#define TALLY_PAPI_TYPES_H

#ifndef TALLY_PAPI_H
#error "include papi.h, not papi_types.h"
#endif

typedef unsigned long PAPI_thread_id_t;
typedef void *vptr_t;
typedef void (*PAPI_overflow_handler_t)(int EventSet, void *address,
					long long overflow_vector, void *context);
typedef int (*PAPI_debug_handler_t)(int code);

typedef struct _papi_all_thr_spec {
	int num;
	PAPI_thread_id_t *id;
	void **data;
} PAPI_all_thr_spec_t;

typedef struct _papi_sprofil {
	void *pr_base;     /* buffer base */
	unsigned pr_size;  /* buffer size in bytes */
	vptr_t pr_off;     /* pc start address (offset) */
	unsigned pr_scale; /* pc scaling factor: fixed point fraction 0xffff ~= 1 */
} PAPI_sprofil_t;

typedef struct _papi_itimer_option {
	int itimer_num;
	int itimer_sig;
	int ns;
	int flags;
} PAPI_itimer_option_t;

typedef struct _papi_inherit_option {
	int eventset;
	int inherit;
} PAPI_inherit_option_t;

typedef struct _papi_domain_option {
	int def_cidx;
	int eventset;
	int domain;
} PAPI_domain_option_t;

typedef struct _papi_granularity_option {
	int def_cidx;
	int eventset;
	int granularity;
} PAPI_granularity_option_t;

typedef struct _papi_preload_option {
	char lib_preload_env[PAPI_MAX_STR_LEN];
	char lib_preload_sep;
	char lib_dir_env[PAPI_MAX_STR_LEN];
	char lib_dir_sep;
} PAPI_preload_info_t;

typedef struct _papi_component_option {
	char name[PAPI_MAX_STR_LEN];
	char short_name[PAPI_MIN_STR_LEN];
	char description[PAPI_MAX_STR_LEN];
	char version[PAPI_MIN_STR_LEN];
	char support_version[PAPI_MIN_STR_LEN];
	char kernel_version[PAPI_MIN_STR_LEN];
	char disabled_reason[PAPI_HUGE_STR_LEN];
	int disabled;
	int CmpIdx;
	int num_cntrs;
	int num_mpx_cntrs;
	int num_preset_events;
	int num_native_events;
	int default_domain;
	int available_domains;
	int default_granularity;
	int available_granularities;
	int hardware_intr_sig;
	int component_type;
	char *pmu_names[PAPI_PMU_MAX];
	int reserved[8];
	unsigned int hardware_intr : 1;
	unsigned int precise_intr : 1;
	unsigned int posix1b_timers : 1;
	unsigned int kernel_profile : 1;
	unsigned int kernel_multiplex : 1;
	unsigned int fast_counter_read : 1;
	unsigned int fast_real_timer : 1;
	unsigned int fast_virtual_timer : 1;
	unsigned int attach : 1;
	unsigned int attach_must_ptrace : 1;
	unsigned int cntr_umasks : 1;
	unsigned int cpu : 1;
	unsigned int inherit : 1;
	unsigned int reserved_bits : 19;
} PAPI_component_info_t;
typedef PAPI_component_info_t PAPI_substrate_info_t;

typedef struct _papi_mpx_info {
	int timer_sig;
	int timer_num;
	int timer_us;
} PAPI_mpx_info_t;

typedef struct _papi_debug_option {
	int level;
	PAPI_debug_handler_t handler;
} PAPI_debug_option_t;

typedef struct _papi_address_map {
	char name[PAPI_HUGE_STR_LEN];
	vptr_t text_start;
	vptr_t text_end;
	vptr_t data_start;
	vptr_t data_end;
	vptr_t bss_start;
	vptr_t bss_end;
} PAPI_address_map_t;

typedef struct _papi_program_info {
	char fullname[PAPI_HUGE_STR_LEN];
	PAPI_address_map_t address_info;
} PAPI_exe_info_t;

typedef struct _papi_shared_lib_info {
	PAPI_address_map_t *map;
	int count;
} PAPI_shlib_info_t;

typedef struct _papi_mh_tlb_info {
	int type;
	int num_entries;
	int page_size;
	int associativity;
} PAPI_mh_tlb_info_t;

typedef struct _papi_mh_cache_info {
	int type;
	int size;
	int line_size;
	int num_lines;
	int associativity;
} PAPI_mh_cache_info_t;

typedef struct _papi_mh_level_info {
	PAPI_mh_tlb_info_t tlb[PAPI_MH_MAX_LEVELS];
	PAPI_mh_cache_info_t cache[PAPI_MH_MAX_LEVELS];
} PAPI_mh_level_t;

typedef struct _papi_mh_info {
	int levels;
	PAPI_mh_level_t level[PAPI_MAX_MEM_HIERARCHY_LEVELS];
} PAPI_mh_info_t;

typedef struct _papi_hw_info {
	int ncpu;     /* CPUs per NUMA node */
	int threads;  /* hardware threads per core */
	int cores;    /* cores per socket */
	int sockets;
	int nnodes;   /* NUMA nodes */
	int totalcpus;
	int vendor;
	char vendor_string[PAPI_MAX_STR_LEN];
	int model;
	char model_string[PAPI_MAX_STR_LEN];
	float revision;
	int cpuid_family;
	int cpuid_model;
	int cpuid_stepping;
	int cpu_max_mhz;
	int cpu_min_mhz;
	PAPI_mh_info_t mem_hierarchy;
	int virtualized;
	char virtual_vendor_string[PAPI_MAX_STR_LEN];
	char virtual_vendor_version[PAPI_MAX_STR_LEN];
	float mhz;     /* PAPI 3.5: current clock in MHz */
	int clock_mhz; /* PAPI 3.5: cycle-counter clock in MHz */
	int reserved[8];
} PAPI_hw_info_t;

typedef struct _papi_attach_option {
	int eventset;
	unsigned long tid;
} PAPI_attach_option_t;

typedef struct _papi_cpu_option {
	int eventset;
	unsigned int cpu_num;
} PAPI_cpu_option_t;

typedef struct _papi_multiplex_option {
	int eventset;
	int ns;
	int flags;
} PAPI_multiplex_option_t;

typedef struct _papi_addr_range_option {
	int eventset;
	vptr_t start;
	vptr_t end;
	int start_off;
	int end_off;
} PAPI_addr_range_option_t;

typedef union {
	PAPI_preload_info_t preload;
	PAPI_debug_option_t debug;
	PAPI_inherit_option_t inherit;
	PAPI_granularity_option_t granularity;
	PAPI_granularity_option_t defgranularity;
	PAPI_domain_option_t domain;
	PAPI_domain_option_t defdomain;
	PAPI_attach_option_t attach;
	PAPI_cpu_option_t cpu;
	PAPI_multiplex_option_t multiplex;
	PAPI_itimer_option_t itimer;
	PAPI_hw_info_t *hw_info;
	PAPI_shlib_info_t *shlib_info;
	PAPI_exe_info_t *exe_info;
	PAPI_component_info_t *cmp_info;
	PAPI_addr_range_option_t addr;
	char *events_file;
} PAPI_option_t;

typedef struct _dmem_t {
	long long peak;
	long long size;
	long long resident;
	long long high_water_mark;
	long long shared;
	long long text;
	long long library;
	long long heap;
	long long locked;
	long long stack;
	long long pagesize;
	long long pte;
} PAPI_dmem_info_t;

/* PAPI_dmem_info_t fields as an array index (PAPI 3.5 names) */
enum {
	PAPIF_DMEM_VMSIZE = 1,
	PAPIF_DMEM_RESIDENT,
	PAPIF_DMEM_HIGH_WATER,
	PAPIF_DMEM_SHARED,
	PAPIF_DMEM_TEXT,
	PAPIF_DMEM_LIBRARY,
	PAPIF_DMEM_HEAP,
	PAPIF_DMEM_LOCKED,
	PAPIF_DMEM_STACK,
	PAPIF_DMEM_PAGESIZE,
	PAPIF_DMEM_PTE,
	PAPIF_DMEM_MAXVAL
};

typedef struct event_info {
	unsigned int event_code;
	char symbol[PAPI_HUGE_STR_LEN];
	char short_descr[PAPI_MIN_STR_LEN];
	char long_descr[PAPI_HUGE_STR_LEN];
	int component_index;
	char units[PAPI_MIN_STR_LEN];
	int location;
	int data_type;
	int value_type;
	int timescope;
	int update_type;
	int update_freq;
	unsigned int count;      /* number of native terms (0: not available) */
	unsigned int event_type; /* PAPI_PRESET_ENUM_* category bits */
	char derived[PAPI_MIN_STR_LEN];
	char postfix[PAPI_2MAX_STR_LEN];
	unsigned int code[PAPI_MAX_INFO_TERMS];
	char name[PAPI_MAX_INFO_TERMS][PAPI_2MAX_STR_LEN];
	char note[PAPI_HUGE_STR_LEN];
} PAPI_event_info_t;

#endif /* TALLY_PAPI_TYPES_H */

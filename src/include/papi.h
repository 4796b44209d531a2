/*
 * papi.h - the PAPI C API as implemented by Tally.
 *
 * Tally implements the PAPI 3.5 C API plus the PAPI 7 additions that real
 * codes use.  Where the two disagree, the PAPI 7 form is the default and the
 * 3.5 form is available by defining TALLY_PAPI35_COMPAT before including this
 * header (see README, "PAPI 3.5 vs PAPI 7").
 *
 * Every function returns PAPI_OK (0) or a negative PAPI_E* code unless its
 * comment says otherwise.
 */
#ifndef TALLY_PAPI_H
#define TALLY_PAPI_H

#include <sys/types.h>
#include <limits.h>
#include <signal.h>
#include "papiStdEventDefs.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define PAPI_EXPORT __attribute__((visibility("default")))
#else
#define PAPI_EXPORT
#endif

/* ---- Versions ------------------------------------------------------- */
#define PAPI_VERSION_NUMBER(maj, min, rev, inc) \
	(((maj) << 24) | ((min) << 16) | ((rev) << 8) | (inc))
#define PAPI_VERSION_MAJOR(x) (((x) >> 24) & 0xff)
#define PAPI_VERSION_MINOR(x) (((x) >> 16) & 0xff)
#define PAPI_VERSION_REVISION(x) (((x) >> 8) & 0xff)
#define PAPI_VERSION_INCREMENT(x) ((x) & 0xff)
#define PAPI_VERSION PAPI_VERSION_NUMBER(7, 1, 0, 0)
#define PAPI_VER_CURRENT (PAPI_VERSION & 0xffff0000)

/* ---- Return codes --------------------------------------------------- */
#define PAPI_OK 0             /* No error */
#define PAPI_EINVAL -1        /* Invalid argument */
#define PAPI_ENOMEM -2        /* Insufficient memory */
#define PAPI_ESYS -3          /* A system or C library call failed */
#define PAPI_ECMP -4          /* Not supported by component */
#define PAPI_ESBSTR PAPI_ECMP /* 3.5 name of PAPI_ECMP */
#define PAPI_ECLOST -5        /* Access to the counters was lost */
#define PAPI_EBUG -6          /* Internal error */
#define PAPI_ENOEVNT -7       /* Event does not exist */
#define PAPI_ECNFLCT -8       /* Event exists but cannot be counted with the others */
#define PAPI_ENOTRUN -9       /* EventSet is not running */
#define PAPI_EISRUN -10       /* EventSet is running */
#define PAPI_ENOEVST -11      /* No such EventSet */
#define PAPI_ENOTPRESET -12   /* Event is not a valid preset */
#define PAPI_ENOCNTR -13      /* Hardware does not support the counters */
#define PAPI_EMISC -14        /* Unknown error */
#define PAPI_EPERM -15        /* Permission level does not permit the operation */
#define PAPI_ENOINIT -16      /* PAPI has not been initialised */
#define PAPI_ENOCMP -17       /* Component index is not valid */
#define PAPI_ENOSUPP -18      /* Not supported */
#define PAPI_ENOIMPL -19      /* Not implemented */
#define PAPI_EBUF -20         /* Buffer size exceeded */
#define PAPI_EINVAL_DOM -21   /* Invalid domain for this event set */
#define PAPI_EATTR -22        /* Invalid or missing event attribute */
#define PAPI_ECOUNT -23       /* Too many events or attributes */
#define PAPI_ECOMBO -24       /* Bad combination of features */
#define PAPI_ECMP_DISABLED -25 /* Component containing event is disabled */
#define PAPI_EDELAY_INIT -26  /* Delayed initialisation component */
#define PAPI_EMULPASS -27     /* Event exists but needs multiple passes */
#define PAPI_NUM_ERRORS 28

#define PAPI_NOT_INITED 0
#define PAPI_LOW_LEVEL_INITED 1
#define PAPI_HIGH_LEVEL_INITED 2
#define PAPI_THREAD_LEVEL_INITED 4

#define PAPI_NULL -1

/* ---- Event set states (bit mask) ------------------------------------ */
#define PAPI_STOPPED 0x01
#define PAPI_RUNNING 0x02
#define PAPI_PAUSED 0x04
#define PAPI_NOT_INIT 0x08
#define PAPI_OVERFLOWING 0x10
#define PAPI_PROFILING 0x20
#define PAPI_MULTIPLEXING 0x40
#define PAPI_ATTACHED 0x80
#define PAPI_CPU_ATTACHED 0x100

/* ---- Event codes ---------------------------------------------------- */
#define PAPI_NATIVE_MASK 0x40000000
#define PAPI_UE_MASK ((int)0xC0000000)
#define PAPI_PRESET_AND_MASK 0x7FFFFFFF
#define PAPI_NATIVE_AND_MASK 0xBFFFFFFF
#define PAPI_UE_AND_MASK 0x3FFFFFFF
#define PAPI_MAX_PRESET_EVENTS 128
#define PAPI_MAX_USER_EVENTS 50
#define USER_EVENT_OPERATION_LEN 512

#define IS_NATIVE(code) (((code) & PAPI_NATIVE_MASK) && !((code) & PAPI_PRESET_MASK))
#define IS_PRESET(code) (((code) & PAPI_PRESET_MASK) && !((code) & PAPI_NATIVE_MASK))
#define IS_USER_DEFINED(code) (((code) & PAPI_UE_MASK) == PAPI_UE_MASK)

/* ---- Counting domains ----------------------------------------------- */
#define PAPI_DOM_USER 0x1
#define PAPI_DOM_MIN PAPI_DOM_USER
#define PAPI_DOM_KERNEL 0x2
#define PAPI_DOM_OTHER 0x4
#define PAPI_DOM_SUPERVISOR 0x8
#define PAPI_DOM_ALL (PAPI_DOM_USER | PAPI_DOM_KERNEL | PAPI_DOM_OTHER | PAPI_DOM_SUPERVISOR)
#define PAPI_DOM_MAX PAPI_DOM_ALL
#define PAPI_DOM_HWSPEC 0x80000000

/* ---- Granularities -------------------------------------------------- */
#define PAPI_GRN_THR 0x1
#define PAPI_GRN_MIN PAPI_GRN_THR
#define PAPI_GRN_PROC 0x2
#define PAPI_GRN_PROCG 0x4
#define PAPI_GRN_SYS 0x8
#define PAPI_GRN_SYS_CPU 0x10
#define PAPI_GRN_MAX PAPI_GRN_SYS_CPU

/* ---- Thread-specific storage and locks ------------------------------ */
#define PAPI_USR1_TLS 0x0
#define PAPI_USR2_TLS 0x1
#define PAPI_HIGH_LEVEL_TLS 0x2
#define PAPI_NUM_TLS 0x3
#define PAPI_TLS_USR1 PAPI_USR1_TLS
#define PAPI_TLS_USR2 PAPI_USR2_TLS
#define PAPI_TLS_HIGH_LEVEL PAPI_HIGH_LEVEL_TLS
#define PAPI_TLS_NUM PAPI_NUM_TLS
#define PAPI_TLS_ALL_THREADS 0x10

#define PAPI_USR1_LOCK 0x0
#define PAPI_USR2_LOCK 0x1
#define PAPI_NUM_LOCK 0x2
#define PAPI_LOCK_USR1 PAPI_USR1_LOCK
#define PAPI_LOCK_USR2 PAPI_USR2_LOCK
#define PAPI_LOCK_NUM PAPI_NUM_LOCK

/* ---- Vendors -------------------------------------------------------- */
#define PAPI_VENDOR_UNKNOWN 0
#define PAPI_VENDOR_INTEL 1
#define PAPI_VENDOR_AMD 2
#define PAPI_VENDOR_IBM 3
#define PAPI_VENDOR_CRAY 4
#define PAPI_VENDOR_SUN 5
#define PAPI_VENDOR_FREESCALE 6
#define PAPI_VENDOR_ARM 7
#define PAPI_VENDOR_MIPS 8

/* ---- Profiling and overflow flags ----------------------------------- */
#define PAPI_PROFIL_POSIX 0x0
#define PAPI_PROFIL_RANDOM 0x1
#define PAPI_PROFIL_WEIGHTED 0x2
#define PAPI_PROFIL_COMPRESS 0x4
#define PAPI_PROFIL_BUCKET_16 0x8
#define PAPI_PROFIL_BUCKET_32 0x10
#define PAPI_PROFIL_BUCKET_64 0x20
#define PAPI_PROFIL_FORCE_SW 0x40
#define PAPI_PROFIL_DATA_EAR 0x80
#define PAPI_PROFIL_INST_EAR 0x100
#define PAPI_PROFIL_BUCKETS (PAPI_PROFIL_BUCKET_16 | PAPI_PROFIL_BUCKET_32 | PAPI_PROFIL_BUCKET_64)

#define PAPI_OVERFLOW_FORCE_SW 0x40
#define PAPI_OVERFLOW_HARDWARE 0x80

#define PAPI_MULTIPLEX_DEFAULT 0x0
#define PAPI_MULTIPLEX_FORCE_SW 0x1

#define PAPI_INHERIT_ALL 1
#define PAPI_INHERIT_NONE 0

/* ---- Options for PAPI_get_opt / PAPI_set_opt ------------------------ */
#define PAPI_DETACH 1
#define PAPI_DEBUG 2
#define PAPI_MULTIPLEX 3
#define PAPI_DEFDOM 4
#define PAPI_DOMAIN 5
#define PAPI_DEFGRN 6
#define PAPI_GRANUL 7
#define PAPI_DEF_MPX_NS 8
#define PAPI_DEF_MPX_USEC 9 /* PAPI 3.5: default multiplex period in us */
#define PAPI_MAX_MPX_CTRS 11
#define PAPI_PROFIL 12
#define PAPI_PRELOAD 13
#define PAPI_CLOCKRATE 14
#define PAPI_MAX_HWCTRS 15
#define PAPI_HWINFO 16
#define PAPI_EXEINFO 17
#define PAPI_MAX_CPUS 18
#define PAPI_ATTACH 19
#define PAPI_SHLIBINFO 20
#define PAPI_LIB_VERSION 21
#define PAPI_COMPONENTINFO 22
#define PAPI_SUBSTRATEINFO PAPI_COMPONENTINFO
#define PAPI_DATA_ADDRESS 23
#define PAPI_INSTR_ADDRESS 24
#define PAPI_DEF_ITIMER 25
#define PAPI_DEF_ITIMER_NS 26
#define PAPI_CPU_ATTACH 27
#define PAPI_INHERIT 28
#define PAPI_USER_EVENTS_FILE 29
#define PAPI_INIT_SLOTS 64

/* ---- Debug levels --------------------------------------------------- */
#define PAPI_QUIET 0
#define PAPI_VERB_ECONT 1
#define PAPI_VERB_ESTOP 2

/* ---- String sizes --------------------------------------------------- */
#define PAPI_MIN_STR_LEN 64
#define PAPI_MAX_STR_LEN 128
#define PAPI_2MAX_STR_LEN 256
#define PAPI_HUGE_STR_LEN 1024
#define PAPI_PMU_MAX 40
#define PAPI_DERIVED 0x1
#define PAPI_MAX_INFO_TERMS 12
#define PAPI_EVENTS_IN_DERIVED_EVENT 8

/* ---- Enumeration modifiers for PAPI_enum_event ---------------------- */
enum {
	PAPI_ENUM_EVENTS = 0,
	PAPI_ENUM_FIRST,
	PAPI_PRESET_ENUM_AVAIL,
	PAPI_PRESET_ENUM_MSC,
	PAPI_PRESET_ENUM_INS,
	PAPI_PRESET_ENUM_IDL,
	PAPI_PRESET_ENUM_BR,
	PAPI_PRESET_ENUM_CND,
	PAPI_PRESET_ENUM_MEM,
	PAPI_PRESET_ENUM_CACH,
	PAPI_PRESET_ENUM_L1,
	PAPI_PRESET_ENUM_L2,
	PAPI_PRESET_ENUM_L3,
	PAPI_PRESET_ENUM_TLB,
	PAPI_PRESET_ENUM_FP,
	PAPI_NTV_ENUM_UMASKS,
	PAPI_NTV_ENUM_UMASK_COMBOS,
	PAPI_NTV_ENUM_IARR,
	PAPI_NTV_ENUM_DARR,
	PAPI_NTV_ENUM_OPCM,
	PAPI_NTV_ENUM_IEAR,
	PAPI_NTV_ENUM_DEAR,
	PAPI_NTV_ENUM_GROUPS
};

/* ---- Event info location / type descriptors (PAPI 7) ---------------- */
#define PAPI_LOCATION_CORE 0
#define PAPI_LOCATION_CPU 1
#define PAPI_LOCATION_PACKAGE 2
#define PAPI_LOCATION_UNCORE 3
#define PAPI_DATATYPE_INT64 0
#define PAPI_DATATYPE_UINT64 1
#define PAPI_DATATYPE_FP64 2
#define PAPI_DATATYPE_BIT64 3
#define PAPI_VALUETYPE_RUNNING_SUM 0
#define PAPI_VALUETYPE_ABSOLUTE 1
#define PAPI_TIMESCOPE_SINCE_START 0
#define PAPI_TIMESCOPE_SINCE_LAST 1
#define PAPI_TIMESCOPE_UNTIL_NEXT 2
#define PAPI_TIMESCOPE_POINT 3

/* ---- Memory hierarchy descriptors ----------------------------------- */
#define PAPI_MAX_MEM_HIERARCHY_LEVELS 4
#define PAPI_MH_MAX_LEVELS 6
#define PAPI_MH_TYPE_EMPTY 0x0
#define PAPI_MH_TYPE_INST 0x1
#define PAPI_MH_TYPE_DATA 0x2
#define PAPI_MH_TYPE_VECTOR 0x4
#define PAPI_MH_TYPE_TRACE 0x8
#define PAPI_MH_TYPE_UNIFIED (PAPI_MH_TYPE_INST | PAPI_MH_TYPE_DATA)
#define PAPI_MH_CACHE_TYPE(a) ((a) & 0xf)
#define PAPI_MH_TYPE_WT 0x00
#define PAPI_MH_TYPE_WB 0x10
#define PAPI_MH_CACHE_WRITE_POLICY(a) ((a) & 0xf0)
#define PAPI_MH_TYPE_UNKNOWN 0x000
#define PAPI_MH_TYPE_LRU 0x100
#define PAPI_MH_TYPE_PSEUDO_LRU 0x200
#define PAPI_MH_CACHE_REPLACEMENT_POLICY(a) ((a) & 0xf00)
#define PAPI_MH_TYPE_TLB 0x1000
#define PAPI_MH_TYPE_PREF 0x2000
#define PAPI_MH_TYPE_RD_ALLOC 0x10000
#define PAPI_MH_TYPE_WR_ALLOC 0x20000
#define PAPI_MH_TYPE_RW_ALLOC 0x40000
#define PAPI_MH_CACHE_ALLOCATION_POLICY(a) ((a) & 0xf0000)

/* ---- Types (papi_types.h) ------------------------------------------ */
#include "papi_types.h"

/* ---- Low-level API -------------------------------------------------- */
PAPI_EXPORT int PAPI_accum(int EventSet, long long *values);
PAPI_EXPORT int PAPI_add_event(int EventSet, int Event);
PAPI_EXPORT int PAPI_add_named_event(int EventSet, const char *EventName);
PAPI_EXPORT int PAPI_add_events(int EventSet, int *Events, int number);
PAPI_EXPORT int PAPI_assign_eventset_component(int EventSet, int cidx);
PAPI_EXPORT int PAPI_attach(int EventSet, unsigned long tid);
PAPI_EXPORT int PAPI_cleanup_eventset(int EventSet);
PAPI_EXPORT int PAPI_create_eventset(int *EventSet);
PAPI_EXPORT int PAPI_detach(int EventSet);
PAPI_EXPORT int PAPI_destroy_eventset(int *EventSet);
PAPI_EXPORT int PAPI_disable_component(int cidx);
PAPI_EXPORT int PAPI_disable_component_by_name(const char *name);
PAPI_EXPORT int PAPI_encode_events(char *event_file, int replace);
PAPI_EXPORT int PAPI_enum_event(int *EventCode, int modifier);
PAPI_EXPORT int PAPI_enum_cmp_event(int *EventCode, int modifier, int cidx);
PAPI_EXPORT int PAPI_event_code_to_name(int EventCode, char *out);
PAPI_EXPORT int PAPI_event_name_to_code(const char *in, int *out);
PAPI_EXPORT int PAPI_get_dmem_info(PAPI_dmem_info_t *dest);
PAPI_EXPORT int PAPI_get_event_info(int EventCode, PAPI_event_info_t *info);
PAPI_EXPORT const PAPI_exe_info_t *PAPI_get_executable_info(void);
PAPI_EXPORT const PAPI_hw_info_t *PAPI_get_hardware_info(void);
PAPI_EXPORT const PAPI_component_info_t *PAPI_get_component_info(int cidx);
PAPI_EXPORT const PAPI_substrate_info_t *PAPI_get_substrate_info(void);
PAPI_EXPORT int PAPI_get_multiplex(int EventSet);
PAPI_EXPORT int PAPI_get_opt(int option, PAPI_option_t *ptr);
PAPI_EXPORT int PAPI_get_cmp_opt(int option, PAPI_option_t *ptr, int cidx);
PAPI_EXPORT long long PAPI_get_real_cyc(void);
PAPI_EXPORT long long PAPI_get_real_nsec(void);
PAPI_EXPORT long long PAPI_get_real_usec(void);
PAPI_EXPORT const PAPI_shlib_info_t *PAPI_get_shared_lib_info(void);
PAPI_EXPORT int PAPI_get_thr_specific(int tag, void **ptr);
PAPI_EXPORT int PAPI_get_overflow_event_index(int EventSet, long long overflow_vector,
					      int *array, int *number);
PAPI_EXPORT long long PAPI_get_virt_cyc(void);
PAPI_EXPORT long long PAPI_get_virt_nsec(void);
PAPI_EXPORT long long PAPI_get_virt_usec(void);
PAPI_EXPORT int PAPI_is_initialized(void);
PAPI_EXPORT int PAPI_library_init(int version);
PAPI_EXPORT int PAPI_list_events(int EventSet, int *Events, int *number);
PAPI_EXPORT int PAPI_list_threads(PAPI_thread_id_t *tids, int *number);
PAPI_EXPORT int PAPI_lock(int lck);
PAPI_EXPORT int PAPI_multiplex_init(void);
PAPI_EXPORT int PAPI_num_cmp_hwctrs(int cidx);
PAPI_EXPORT int PAPI_num_components(void);
PAPI_EXPORT int PAPI_num_events(int EventSet);
PAPI_EXPORT int PAPI_num_hwctrs(void);
PAPI_EXPORT int PAPI_overflow(int EventSet, int EventCode, int threshold, int flags,
			      PAPI_overflow_handler_t handler);
PAPI_EXPORT int PAPI_profil(void *buf, unsigned bufsiz, vptr_t offset, unsigned scale,
			    int EventSet, int EventCode, int threshold, int flags);
PAPI_EXPORT int PAPI_query_event(int EventCode);
PAPI_EXPORT int PAPI_query_named_event(const char *EventName);
PAPI_EXPORT int PAPI_read(int EventSet, long long *values);
PAPI_EXPORT int PAPI_read_ts(int EventSet, long long *values, long long *cyc);
PAPI_EXPORT int PAPI_register_thread(void);
PAPI_EXPORT int PAPI_remove_event(int EventSet, int EventCode);
PAPI_EXPORT int PAPI_remove_named_event(int EventSet, const char *EventName);
PAPI_EXPORT int PAPI_remove_events(int EventSet, int *Events, int number);
PAPI_EXPORT int PAPI_reset(int EventSet);
PAPI_EXPORT int PAPI_set_debug(int level);
PAPI_EXPORT int PAPI_set_cmp_domain(int domain, int cidx);
PAPI_EXPORT int PAPI_set_domain(int domain);
PAPI_EXPORT int PAPI_set_cmp_granularity(int granularity, int cidx);
PAPI_EXPORT int PAPI_set_granularity(int granularity);
PAPI_EXPORT int PAPI_set_multiplex(int EventSet);
PAPI_EXPORT int PAPI_set_opt(int option, PAPI_option_t *ptr);
PAPI_EXPORT int PAPI_set_thr_specific(int tag, void *ptr);
PAPI_EXPORT void PAPI_shutdown(void);
PAPI_EXPORT int PAPI_sprofil(PAPI_sprofil_t *prof, int profcnt, int EventSet, int EventCode,
			     int threshold, int flags);
PAPI_EXPORT int PAPI_start(int EventSet);
PAPI_EXPORT int PAPI_state(int EventSet, int *status);
PAPI_EXPORT int PAPI_stop(int EventSet, long long *values);
PAPI_EXPORT char *PAPI_strerror(int errorCode);
PAPI_EXPORT unsigned long PAPI_thread_id(void);
PAPI_EXPORT int PAPI_thread_init(unsigned long (*id_fn)(void));
PAPI_EXPORT int PAPI_unlock(int lck);
PAPI_EXPORT int PAPI_unregister_thread(void);
PAPI_EXPORT int PAPI_write(int EventSet, long long *values);
PAPI_EXPORT int PAPI_get_event_component(int EventCode);
PAPI_EXPORT int PAPI_get_eventset_component(int EventSet);
PAPI_EXPORT int PAPI_get_component_index(const char *name);

/*
 * PAPI_perror: PAPI 7 prints "msg: <last error text>" to stderr.  PAPI 3.5
 * formatted the text of a given code into a buffer; define
 * TALLY_PAPI35_COMPAT to get that form under the same name.
 */
PAPI_EXPORT void tally_papi7_perror(const char *msg);
PAPI_EXPORT int tally_papi35_perror(int code, char *destination, int length);
#ifdef TALLY_PAPI35_COMPAT
#define PAPI_perror(code, dest, len) tally_papi35_perror((code), (dest), (len))
#else
PAPI_EXPORT void PAPI_perror(const char *msg);
#endif

/* ---- High-level API (PAPI 3.5) -------------------------------------- */
PAPI_EXPORT int PAPI_num_counters(void);
PAPI_EXPORT int PAPI_start_counters(int *events, int array_len);
PAPI_EXPORT int PAPI_read_counters(long long *values, int array_len);
PAPI_EXPORT int PAPI_accum_counters(long long *values, int array_len);
PAPI_EXPORT int PAPI_stop_counters(long long *values, int array_len);
PAPI_EXPORT int PAPI_flips(float *rtime, float *ptime, long long *flpins, float *mflips);
PAPI_EXPORT int PAPI_flops(float *rtime, float *ptime, long long *flpops, float *mflops);
PAPI_EXPORT int PAPI_ipc(float *rtime, float *ptime, long long *ins, float *ipc);

/* ---- Rate and region API (PAPI 7) ----------------------------------- */
PAPI_EXPORT int PAPI_flips_rate(int event, float *rtime, float *ptime, long long *flpins,
				float *mflips);
PAPI_EXPORT int PAPI_flops_rate(int event, float *rtime, float *ptime, long long *flpops,
				float *mflops);
PAPI_EXPORT int PAPI_epc(int event, float *rtime, float *ptime, long long *ref,
			 long long *core, long long *evt, float *epc);
PAPI_EXPORT int PAPI_rate_stop(void);
PAPI_EXPORT int PAPI_hl_region_begin(const char *region);
PAPI_EXPORT int PAPI_hl_read(const char *region);
PAPI_EXPORT int PAPI_hl_region_end(const char *region);
PAPI_EXPORT int PAPI_hl_stop(void);

#ifdef __cplusplus
}
#endif

#endif /* TALLY_PAPI_H */

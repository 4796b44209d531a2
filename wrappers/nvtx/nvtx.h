/*
 * nvtx.h - Tally as an NVTX tool: internal interface of wrappers/nvtx/.
 *
 * Files, one idea each:
 *   nvtx_core.c     core handlers (InitializeInjectionNvtx2): ranges, marks
 *   nvtx_names.c    domains, registered strings, categories, thread names
 *   nvtx_schema.c   payload schema and enum registration
 *   nvtx_check.c    validation of a schema (refused: why)
 *   nvtx_registry.c the published schemas and enums, type sizes, refusals
 *   nvtx_layout.c   the row type (tool-side layout) built for a schema
 *   nvtx_decode.c   payload decoder (bounded by the payload's size)
 *   nvtx_time.c     time domains, sync points, conversion to Tally's clock
 *   nvtx_ext.c      payload extension handlers (InitializeInjectionNvtxExtension)
 *   nvtx_store.c    per-thread records (marks, payload rows) and start/end ranges
 *   nvtx_arena.c    the records' bump allocator (store and decoder)
 *   nvtx_borrow.c   NCCL's ranges in the process's region (borrowed frames)
 * Output: nvtx/nvtx_rows.c (writer module "nvtx").
 */
#ifndef TALLY_NVTX_H
#define TALLY_NVTX_H

#include <stddef.h>
#include <stdint.h>

#ifndef NVTX_NO_IMPL
#define NVTX_NO_IMPL
#endif
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtPayload.h>


/* NVTX push/pop ranges are regions of this kind (after TLY_RK_OMP_TASK). */
#define TLY_RK_NVTX 7

#define TLY_NV_MAX_ENTRIES 1024       /* entries in one schema */
#define TLY_NV_MAX_ARRAY (1u << 20)   /* elements of one array */
#define TLY_NV_MAX_BYTES (1u << 26)   /* bytes of one payload / one array */
#define TLY_NV_MAX_DEPTH 8            /* nesting of schemas */
#define TLY_NV_MAX_ROW (1u << 28)     /* bytes of one table row in Tally */
#define TLY_NV_MAX_SCHEMAS 4096
#define TLY_NV_MAX_ENUMS 1024
#define TLY_NV_MAX_STRINGS (1 << 20)   /* a multiple of 4096 (nvtx_names.c) */
#define TLY_NV_MAX_DOMAINS 1024

/* ---- settings (nvtx_names.c) ------------------------------------------ */
struct tly_nv_opts { int on, counters; };
const struct tly_nv_opts *tly_nv_opts(void);
int tly_nv_domain_filter(const char *name);   /* 1 enabled */

/* ---- names (nvtx_names.c) --------------------------------------------- */
/* Domain handles are index + 1; NULL is the default domain (index 0). */
int tly_nv_domain_index(nvtxDomainHandle_t d);          /* -1 when unknown */
nvtxDomainHandle_t tly_nv_domain_create(const char *name);
void tly_nv_domain_destroy(nvtxDomainHandle_t d);
int tly_nv_domain_enabled(nvtxDomainHandle_t d);
const char *tly_nv_domain_name(int index);
int tly_nv_ndomains(void);
/* Domains created beyond TLY_NV_MAX_DOMAINS (said once, at the first). */
long tly_nv_domains_over(void);
nvtxStringHandle_t tly_nv_string_register(int domain, const char *s);
const char *tly_nv_string(nvtxStringHandle_t h);        /* NULL when unknown */
void tly_nv_name_add(int domain, int kind, uint64_t id, const char *name);
size_t tly_nv_names(int i, int *domain, int *kind, uint64_t *id, const char **name);
/* Wide (wchar_t / UTF-16 / UTF-32) text to UTF-8, at most len-1 bytes. */
void tly_nv_utf8(const void *src, size_t unit, size_t maxunits, char *dst, size_t len);

/* ---- row types (nvtx_layout.c) ---------------------------------------- */
enum tly_nv_kind { TLY_NV_INT, TLY_NV_UINT, TLY_NV_FLOAT, TLY_NV_STR, TLY_NV_ENUM,
	TLY_NV_COMP, TLY_NV_ARRAY, TLY_NV_VLEN, TLY_NV_OPAQUE };

struct tly_nv_enum;
struct tly_nv_fld;

/* A column type of a payload table, in Tally's own row memory. */
struct tly_nv_ct {
	int kind;
	uint32_t size;                /* bytes in the row */
	uint32_t n;                   /* fields (COMP) or elements (ARRAY) */
	struct tly_nv_fld *f;         /* COMP */
	struct tly_nv_ct *elem;       /* ARRAY, VLEN */
	const struct tly_nv_enum *en; /* ENUM */
};
struct tly_nv_fld {
	char *name;
	uint32_t off;
	struct tly_nv_ct *t;
};
/* VLEN values in a row (same layout as HDF5's hvl_t). */
struct tly_nv_vl { size_t len; void *p; };

/* ---- schemas and enums (nvtx_schema.c) -------------------------------- */
struct tly_nv_enum {
	uint64_t id;
	int domain;
	char *name;
	size_t n, size;
	char **names;
	uint64_t *values;
};

struct tly_nv_entry {
	uint64_t flags, type, detail;
	char *name;
	uint64_t off;                 /* source offset (static layouts) */
	uint64_t size, align;         /* source bytes of the entry (0: variable) */
	uint64_t esz;                 /* source bytes of one element */
	uint64_t time_domain;         /* from time semantics, 0 = none */
	const struct tly_nv_schema *nested;
	const struct tly_nv_enum *en;
	int prim;                     /* predefined type, 0 otherwise */
};

struct tly_nv_schema {
	uint64_t id;
	int domain;
	char *name;                   /* unique table name */
	uint64_t type, flags;
	size_t n;
	struct tly_nv_entry *e;
	uint64_t size, align;         /* static size (0: dynamic) */
	int variable;                 /* has variable-size embedded entries */
	int msg;                      /* entry giving the event message, -1 */
	int depth;                    /* nesting depth (1: no nested schema) */
	int selector;                 /* internal union selector entry, -1 */
	struct tly_nv_ct *row;        /* header + fields */
	uint32_t data_off;            /* index in row->f of the first entry field */
};

/* ---- the registry (nvtx_registry.c) ----------------------------------- */
/* Entry size/alignment of predefined type `t`; 0 when unknown. */
int tly_nv_prim(uint64_t t, uint64_t *size, uint64_t *align);
void tly_nv_set_typeinfo(const nvtxPayloadEntryTypeInfo_t *ti);
const struct tly_nv_schema *tly_nv_schema_find(uint64_t id);
const struct tly_nv_enum *tly_nv_enum_find(uint64_t id);
int tly_nv_nschemas(void);
const struct tly_nv_schema *tly_nv_schema_at(int i);
int tly_nv_nenums(void);
const struct tly_nv_enum *tly_nv_enum_at(int i);
/* Why the last registration was refused (for tests and the log). */
const char *tly_nv_last_refusal(void);
/* Record why a registration is refused (logged once per reason); -1. */
int tly_nv_refuse(const char *name, const char *fmt, const char *detail);
/* For the registration, between tly_nv_registry_lock(1) and (0): the next
 * dynamic id, publishing (below the capacity the caller checked), and
 * forgetting every entry (the caller frees them). */
void tly_nv_registry_lock(int lock);
uint64_t tly_nv_registry_next_id(void);
void tly_nv_schema_publish(struct tly_nv_schema *s);
void tly_nv_enum_publish(struct tly_nv_enum *e);
void tly_nv_registry_forget(void);

/* ---- registration (nvtx_schema.c) ------------------------------------- */
uint64_t tly_nv_schema_register(int domain, const nvtxPayloadSchemaAttr_t *a, uint64_t forced_id);
uint64_t tly_nv_enum_register(int domain, const nvtxPayloadEnumAttr_t *a, uint64_t forced_id);
/* Validate `a` and fill `s` (entries sized and placed); 0 or -1 (refused):
 * nvtx_check.c. */
int tly_nv_check(const nvtxPayloadSchemaAttr_t *a, uint64_t id, struct tly_nv_schema *s);
void tly_nv_schema_free(struct tly_nv_schema *s);
void tly_nv_registry_reset(void);     /* fuzzing: forget every schema */

/* Row type of a schema (nvtx_layout.c); NULL when out of memory. */
struct tly_nv_ct *tly_nv_layout(const struct tly_nv_schema *s, uint32_t *data_off);
void tly_nv_ct_free(struct tly_nv_ct *t);

/* ---- rows ------------------------------------------------------------- */
enum tly_nv_event { TLY_NV_EV_MARK, TLY_NV_EV_PUSH, TLY_NV_EV_POP, TLY_NV_EV_START,
	TLY_NV_EV_END, TLY_NV_EV_DEFERRED, TLY_NV_EV_DATA };

/* First columns of every payload row. */
struct tly_nv_hdr {
	int32_t rank, thread, region, event;
	int64_t time_ns, end_ns;
	uint64_t range_id;
	int32_t domain, scope;
};

/* Bump allocator owned by one thread (or one decode call): nvtx_arena.c. */
struct tly_nv_arena {
	struct tly_nv_chunk *head;
	size_t used, cap;
};
void *tly_nv_alloc(struct tly_nv_arena *a, size_t n);
void tly_nv_arena_free(struct tly_nv_arena *a);

/* ---- decoder (nvtx_decode.c) ------------------------------------------ */
struct tly_nv_dec {
	struct tly_nv_arena *arena;
	int follow_pointers;          /* 0 for untrusted input (fuzzing) */
	const char *msg;              /* event message found, or NULL */
	int64_t ts[2];                /* first begin/end timestamps found */
	uint64_t ts_domain[2];
	int nts;
};
/* Decode `size` bytes at `p` by schema `s` into `row` (s->row->size bytes,
 * header left to the caller).  0, or -1 when the payload is too short. */
int tly_nv_decode(const struct tly_nv_schema *s, const void *p, size_t size, void *row,
		  struct tly_nv_dec *d);
/* Bytes a static-size payload of `s` occupies (batch stride). */
uint64_t tly_nv_stride(const struct tly_nv_schema *s);

/* ---- time (nvtx_time.c) ------------------------------------------------- */
int64_t tly_nv_now(void);
uint64_t tly_nv_time_domain_register(int domain, const nvtxTimeDomainAttr_t *a);
void tly_nv_timer_source(uint64_t td, uint64_t flags, int64_t (*fn0)(void), int64_t (*fn1)(void *), void *data);
void tly_nv_sync(uint64_t a, uint64_t b, int64_t ta, int64_t tb);
void tly_nv_factor(uint64_t src, uint64_t dst, double slope, int64_t ts, int64_t td);
/* Timestamp `t` of domain `td` in Tally's clock; 0 and -1 when unknown. */
int tly_nv_convert(uint64_t td, int64_t t, int64_t *out);
uint64_t tly_nv_scope_time_domain(uint64_t scope);
uint64_t tly_nv_scope_register(int domain, const nvtxScopeAttr_t *a);
void tly_nv_time_exit(void);

/* ---- records (nvtx_store.c) ------------------------------------------- */
struct tly_rt_thread;
struct tly_nv_mark {
	int32_t node, domain;
	uint32_t category;
	int64_t time_ns;
	char message[256];
};
struct tly_nv_prow {
	const struct tly_nv_schema *s;
	struct tly_rt_thread *rt;
	void *row;
};
struct tly_nv_thread {
	struct tly_rt_thread *rt;
	int depth;                    /* open NVTX push ranges */
	uint8_t entered[256];         /* per level: bit 0 it entered a region, the rest the
				       * borrowed frames entered before it (nvtx_borrow.c) */
	struct tly_nv_mark *marks;
	size_t nmarks, capmarks;
	struct tly_nv_prow *rows;
	size_t nrows, caprows;
	struct tly_nv_arena arena;
	struct tly_nv_thread *next;
};
struct tly_nv_range {
	uint64_t id;
	int32_t domain, start_thread, end_thread;
	uint32_t category;
	int64_t start_ns, end_ns;
	char message[256];
};
struct tly_nv_thread *tly_nv_self(void);      /* NULL when not measuring */
/* NCCL's ranges in the process's region (nvtx_borrow.c): a domain was
 * created; the borrowed frames t enters before a push in domain dom. */
void tly_nv_borrow_domain(nvtxDomainHandle_t d, const char *name);
int tly_nv_borrow(struct tly_nv_thread *t, int dom);
struct tly_nv_thread *tly_nv_threads(void);   /* list (read at write time) */

/* What the payload tables' writer (nvtx_h5.c, in the HDF5 writer library
 * output/h5_lib.h) reads: tly_out_mod_nvtx.h5_src. */
struct tly_nv_h5_src {
	struct tly_nv_thread *(*threads)(void);
	int (*nschemas)(void);
	const struct tly_nv_schema *(*schema_at)(int i);
};
void tly_nv_mark_add(struct tly_nv_thread *t, int domain, uint32_t cat, int64_t ts, const char *msg);
/* Record payloads of one event; returns the event message if one was found. */
const char *tly_nv_payloads(struct tly_nv_thread *t, int domain, int event, uint64_t range,
			    const nvtxPayloadData_t *pd, size_t n, int64_t ts, char *msg, size_t mlen);
/* Deferred events: times from their timestamp entries (domain `td` when an
 * entry names none).  Returns the rows recorded. */
size_t tly_nv_deferred(struct tly_nv_thread *t, int domain, uint64_t schema, const void *p, size_t size,
		       size_t count, uint64_t td, int scope);
uint64_t tly_nv_range_start(int domain, uint32_t cat, const char *msg);
int tly_nv_range_end(uint64_t id);
size_t tly_nv_ranges(const struct tly_nv_range **r);
void tly_nv_lock_ranges(int lock);

/* ---- handlers ----------------------------------------------------------- */
/* Message of event attributes (ASCII, wide, registered) into buf. */
const char *tly_nv_attr_message(const nvtxEventAttributes_t *a, char *buf, size_t len);
int tly_nv_push(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a, const char *msg);
int tly_nv_pop(nvtxDomainHandle_t d);
void tly_nv_mark(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a, const char *msg);
nvtxRangeId_t tly_nv_start(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a, const char *msg);
/* Region name of a range (domain prefix for named domains). */
const char *tly_nv_region_name(int domain, const char *msg, char *buf, size_t len);


#endif

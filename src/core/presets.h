/*
 * presets.h - PAPI preset events: definitions (generated from
 * src/presets/presets.csv), per-PMU mappings to native events (src/presets/maps,
 * the PAPI_encode_events file format), and derived-value evaluation.
 */
#ifndef TALLY_CORE_PRESETS_H
#define TALLY_CORE_PRESETS_H

#include "papi.h"

#define TLY_PCAT(c) (1u << (PAPI_PRESET_ENUM_##c - PAPI_PRESET_ENUM_MSC))
#define TLY_MAX_TERMS PAPI_EVENTS_IN_DERIVED_EVENT

struct tly_preset_def {
	const char *symbol;
	const char *short_descr;
	const char *long_descr;
	unsigned categories; /* TLY_PCAT() bits */
};
extern const struct tly_preset_def tly_preset_defs[PAPI_END_idx];

enum tly_derived {
	TLY_NOT_DERIVED = 0,
	TLY_DERIVED_ADD,     /* t0 + t1 + ... */
	TLY_DERIVED_SUB,     /* t0 - t1 - ... */
	TLY_DERIVED_POSTFIX, /* postfix expression over N0..N7 */
	TLY_DERIVED_PS,      /* t1 per second: t1 * (clock MHz * 1e6) / t0, t0 = cycles */
	TLY_DERIVED_ADD_PS,  /* (t1 + t2 ...) per second, t0 = cycles (as PS) */
	TLY_DERIVED_CMPD,    /* compound: value of t0, others only qualify */
	TLY_DERIVED_NKINDS
};

/*
 * A postfix expression compiled at parse time (tly_postfix_compile): a
 * program for a small stack machine, so evaluating it on every PAPI_read
 * needs no parsing and no allocation.  Division by zero yields 0.
 */
#define TLY_PF_MAX_OPS 64   /* tokens in one expression */
#define TLY_PF_MAX_DEPTH 16 /* stack depth an expression may reach */

enum tly_pf_kind { TLY_PF_TERM, TLY_PF_CONST, TLY_PF_ADD, TLY_PF_SUB, TLY_PF_MUL, TLY_PF_DIV };

struct tly_pf_op {
	int kind;    /* enum tly_pf_kind */
	int term;    /* TLY_PF_TERM: which N<i> */
	long long k; /* TLY_PF_CONST: the constant */
};

struct tly_pf_prog {
	int nops;
	struct tly_pf_op ops[TLY_PF_MAX_OPS];
};

/* A preset as resolved on this machine. */
struct tly_preset {
	int avail;                    /* PAPI_OK, or why not (PAPI_ENOEVNT...) */
	int derived;                  /* enum tly_derived */
	char postfix[PAPI_2MAX_STR_LEN];
	int nterms;                   /* terms of the mapping, available or not */
	int codes[TLY_MAX_TERMS];     /* native event codes (when available) */
	char names[TLY_MAX_TERMS][PAPI_2MAX_STR_LEN]; /* qualified natives of the mapping */
	int generic;                  /* mapped by the generic perf events tier */
	char note[PAPI_HUGE_STR_LEN]; /* source of the mapping, or why unavailable */
	struct tly_pf_prog prog;      /* compiled postfix (TLY_DERIVED_POSTFIX) */
};

/*
 * Resolve every preset against the enabled components (after they init):
 * each preset takes the first row, in the embedded maps, of a block whose
 * CPU line names a PMU some enabled component lists in pmu_names or names
 * as its core PMU (tly_component.core_pmu, even one the kernel cannot
 * program), whose natives tly_native_lookup knows and tly_evset_try_natives
 * accepts.  The others get avail < 0 and a note saying why; a preset whose
 * row did not resolve keeps that row's natives (names) for papi_avail.
 *
 * Two tiers: blocks of CPU-specific PMUs first; blocks naming libpfm4's
 * generic PMU "perf" (the kernel's generic hardware and cache events) only
 * when the kernel counts hardware events and no specific block matched, or
 * when TALLY_PRESETS_GENERIC=1 (then only them).  Runs under the library
 * lock; afterwards tly_preset_get may be called from any thread.  The
 * choice is the same as trying every preset here, made per preset when it
 * is first asked for.
 */
int tly_presets_init(void);
void tly_presets_shutdown(void);
/* Resolved preset by index (0..PAPI_END_idx-1); NULL when out of range.
 * tly_presets_init only finds the rows that apply; a preset is tried on the
 * counters at its first tly_preset_get (under the library lock), so
 * PAPI_library_init opens no counter for presets nobody asks about. */
const struct tly_preset *tly_preset_get(int idx);
/* Presets available here (resolves them all). */
int tly_presets_count_avail(void);
/*
 * Load a preset mapping file in the map format (PAPI_encode_events).  The
 * whole file is checked before anything changes: PAPI_EINVAL when it cannot
 * be read or a line is malformed, PAPI_ENOEVNT when a row names a preset
 * symbol that does not exist (detail names file:line).  Blocks whose CPU
 * line names a present PMU, or "*", apply: with replace, each row that
 * resolves replaces the preset; without, only presets not yet available
 * change.  Rows that do not resolve leave an available preset untouched.
 * The caller holds the library lock.
 */
int tly_presets_load_file(const char *path, int replace);
/* Value of a derived preset from its term values (terms[i] counts codes[i]). */
long long tly_preset_value(const struct tly_preset *p, const long long *terms);
/* Name of a derived kind ("NOT_DERIVED", "DERIVED_ADD"...); "" if unknown. */
const char *tly_derived_name(int derived);
/* Kind by name; -1 when unknown. */
int tly_derived_kind(const char *name);
/* Preset index of a symbol ("PAPI_TOT_CYC"); -1 when there is none. */
int tly_preset_index(const char *symbol);

/* ---- The map file format -------------------------------------------------
 *
 *   # comment (also after a line's fields)
 *   CPU,<pmu>[,<pmu>...]          starts a block; consecutive CPU lines add
 *                                 PMUs to the same block; "*" matches any
 *   PRESET,PAPI_X,NOT_DERIVED,<native>
 *   PRESET,PAPI_X,DERIVED_ADD|DERIVED_SUB|DERIVED_CMPD,<n0>,<n1>[,...]
 *   PRESET,PAPI_X,DERIVED_PS,<cycles>,<native>
 *   PRESET,PAPI_X,DERIVED_ADD_PS,<cycles>,<n1>,<n2>[,...]
 *   PRESET,PAPI_X,DERIVED_POSTFIX,<postfix>,<n0>[,...]
 *
 * Postfix: '|'-separated tokens N0..N7, decimal integers, + - * / in
 * reverse Polish, a trailing '|' optional ("N0|N1|+|2|*|").  Natives
 * without "::" are taken as events of the block's PMU (<pmu>::<native>).
 */
#define TLY_MAP_MAX_PMUS 16
#define TLY_MAP_GENERIC_PMU "perf" /* blocks naming it are the generic tier */
#define TLY_MAP_LINE_MAX 1024

struct tly_map_block {
	int line;  /* line of the first CPU line */
	int npmus;
	char pmus[TLY_MAP_MAX_PMUS][PAPI_MIN_STR_LEN];
};

struct tly_map_row {
	int line;
	int idx;     /* preset index */
	int derived; /* enum tly_derived */
	char postfix[PAPI_2MAX_STR_LEN];
	struct tly_pf_prog prog;
	int nterms;
	char natives[TLY_MAX_TERMS][PAPI_2MAX_STR_LEN];
};

/* Called for each PRESET row with the block it belongs to; a negative
 * return stops the parse and is returned by tly_map_parse. */
typedef int (*tly_map_row_fn)(void *arg, const struct tly_map_block *blk,
			      const struct tly_map_row *row);

/* Parse map text; `file` names it in error details (file:line).  fn may be
 * NULL to only check the text.  PAPI_OK, PAPI_EINVAL or PAPI_ENOEVNT. */
int tly_map_parse(const char *file, const char *text, tly_map_row_fn fn, void *arg);
/* Compile a postfix expression over nterms terms; PAPI_EINVAL when
 * malformed (detail says why, without file:line). */
int tly_postfix_compile(const char *expr, int nterms, struct tly_pf_prog *prog);
/* Run a compiled postfix program. */
long long tly_postfix_eval(const struct tly_pf_prog *prog, const long long *terms);

#endif /* TALLY_CORE_PRESETS_H */

/*
 * preset_types.h - the types of preset events: definitions, derived kinds, compiled
 * postfix programs, a preset as resolved, and the rows of the map file
 * format.  Types only (no .c): every preset file includes it, so includes
 * point down (presets -> preset_parse -> preset_derive -> preset_types).
 */
#ifndef TALLY_CORE_PRESET_TYPES_H
#define TALLY_CORE_PRESET_TYPES_H

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

#endif /* TALLY_CORE_PRESET_TYPES_H */

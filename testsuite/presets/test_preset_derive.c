/*
 * test_preset_derive.c - derived preset values against hand-computed
 * results: ADD, SUB, postfix programs, CMPD, and per-second rates.
 */
#include <limits.h>
#include <string.h>

#include "core/errors.h"
#include "core/presets.h"
#include "core/sysinfo.h"
#include "tharness.h"

struct value_case {
	int line;
	int derived;
	const char *postfix;
	int nterms;
	long long terms[TLY_MAX_TERMS];
	long long expect;
};

static const struct value_case values[] = {
	{__LINE__, TLY_NOT_DERIVED, "", 1, {42}, 42},
	{__LINE__, TLY_DERIVED_CMPD, "", 2, {9, 1000}, 9},
	{__LINE__, TLY_DERIVED_ADD, "", 2, {3, 4}, 7},
	{__LINE__, TLY_DERIVED_ADD, "", 8, {1, 2, 3, 4, 5, 6, 7, 8}, 36},
	{__LINE__, TLY_DERIVED_SUB, "", 3, {10, 3, 2}, 5},
	{__LINE__, TLY_DERIVED_SUB, "", 2, {3, 10}, -7},
	{__LINE__, TLY_DERIVED_POSTFIX, "N0|N1|+|2|*|", 2, {3, 4}, 14},
	{__LINE__, TLY_DERIVED_POSTFIX, "N0|N1|+|2|*", 2, {3, 4}, 14},
	{__LINE__, TLY_DERIVED_POSTFIX, "N0|N1|-|", 2, {3, 4}, -1},
	{__LINE__, TLY_DERIVED_POSTFIX, "N1|N0|/|", 2, {4, 17}, 4},
	{__LINE__, TLY_DERIVED_POSTFIX, "N0|N1|/|", 2, {17, 0}, 0},         /* division by zero */
	{__LINE__, TLY_DERIVED_POSTFIX, "N0|0|/|5|+|", 1, {17}, 5},
	{__LINE__, TLY_DERIVED_POSTFIX, "N0|-3|*|", 1, {7}, -21},
	/* FP ops from per-width counts: 1 + 2*2 + 4*3 + 8*4 + 16*5 = 129 */
	{__LINE__, TLY_DERIVED_POSTFIX, "N0|N1|2|*|+|N2|4|*|+|N3|8|*|+|N4|16|*|+|", 5, {1, 2, 3, 4, 5}, 129},
	/* L1 hits: (100 + 50) - (7 + 3) = 140 */
	{__LINE__, TLY_DERIVED_POSTFIX, "N0|N1|+|N2|-|N3|-|", 4, {100, 50, 7, 3}, 140},
	{__LINE__, TLY_DERIVED_POSTFIX, "N7|N6|N5|N4|N3|N2|N1|N0|+|+|+|+|+|+|+|", 8, {1, 2, 4, 8, 16, 32, 64, 128}, 255},
	{__LINE__, TLY_DERIVED_POSTFIX, "N0|N1|/|", 2, {LLONG_MIN, -1}, LLONG_MIN}, /* wraps, no trap */
};

static void run_value(const struct value_case *c)
{
	struct tly_preset p;

	th_at(c->line);
	memset(&p, 0, sizeof p);
	p.derived = c->derived;
	p.nterms = c->nterms;
	if (c->derived == TLY_DERIVED_POSTFIX)
		TH_EQ(tly_postfix_compile(c->postfix, c->nterms, &p.prog), PAPI_OK);
	TH_EQ(tly_preset_value(&p, c->terms), c->expect);
}

struct compile_case {
	int line;
	const char *expr;
	int nterms;
	int rc;
	int nops;
};

static const struct compile_case compiles[] = {
	{__LINE__, "N0|", 1, PAPI_OK, 1},
	{__LINE__, "N0|N1|+|2|*|", 2, PAPI_OK, 5},
	{__LINE__, "5|", 1, PAPI_OK, 1},
	{__LINE__, "", 1, PAPI_EINVAL, 0},
	{__LINE__, "|", 1, PAPI_EINVAL, 0},
	{__LINE__, "+|", 1, PAPI_EINVAL, 0},
	{__LINE__, "N0|N0|", 1, PAPI_EINVAL, 0},
	{__LINE__, "N1|", 1, PAPI_EINVAL, 0},
	{__LINE__, "N0|N0|%|", 1, PAPI_EINVAL, 0},
	{__LINE__, "N0|1.5|*|", 1, PAPI_EINVAL, 0},
	{__LINE__, "n0|", 1, PAPI_EINVAL, 0},
	{__LINE__, "N0|", 0, PAPI_EINVAL, 0},
	{__LINE__, "N0|", 9, PAPI_EINVAL, 0},
};

static void run_compile(const struct compile_case *c)
{
	struct tly_pf_prog prog;

	th_at(c->line);
	TH_EQ(tly_postfix_compile(c->expr, c->nterms, &prog), c->rc);
	if (c->rc == PAPI_OK)
		TH_EQ(prog.nops, c->nops);
	else
		TH_CHECK(tly_err_detail()[0] != '\0');
}

/* A second's worth of cycles makes a per-second rate equal the count. */
static void per_second(void)
{
	struct tly_preset p;
	double mhz;
	long long one_sec, terms[4];

	th_at(__LINE__);
	TH_EQ(tly_sysinfo_init(), PAPI_OK);
	mhz = tly_cyc_mhz();
	TH_CHECK(mhz > 0.0);
	if (mhz <= 0.0)
		return;
	one_sec = (long long)(mhz * 1e6);
	memset(&p, 0, sizeof p);
	p.derived = TLY_DERIVED_PS;
	p.nterms = 2;
	terms[0] = one_sec; terms[1] = 123456;
	TH_NEAR(tly_preset_value(&p, terms), 123456, 1e-6);
	terms[0] = one_sec / 4; /* a quarter second: four times the rate */
	TH_NEAR(tly_preset_value(&p, terms), 4 * 123456, 1e-6);
	terms[0] = 0;
	TH_EQ(tly_preset_value(&p, terms), 0);
	p.derived = TLY_DERIVED_ADD_PS;
	p.nterms = 4;
	terms[0] = one_sec * 2; terms[1] = 100; terms[2] = 200; terms[3] = 300;
	TH_NEAR(tly_preset_value(&p, terms), 300, 1e-6);
}

static void names(void)
{
	th_at(__LINE__);
	for (int k = 0; k < TLY_DERIVED_NKINDS; k++)
		TH_EQ(tly_derived_kind(tly_derived_name(k)), k);
	TH_CHECK(strcmp(tly_derived_name(TLY_DERIVED_POSTFIX), "DERIVED_POSTFIX") == 0);
	TH_CHECK(strcmp(tly_derived_name(99), "") == 0);
	TH_EQ(tly_derived_kind("DERIVED_FOO"), -1);
	TH_EQ(tly_preset_index("PAPI_TOT_CYC"), PAPI_TOT_CYC_idx);
	TH_EQ(tly_preset_index("PAPI_NOPE"), -1);
}

int main(void)
{
	for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
		run_value(&values[i]);
	for (size_t i = 0; i < sizeof compiles / sizeof compiles[0]; i++)
		run_compile(&compiles[i]);
	per_second();
	names();
	return th_done();
}

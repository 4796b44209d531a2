/*
 * test_preset_parse.c - the preset map parser: good and malformed lines,
 * each table row naming its source line; the embedded maps all parse.
 */
#include <string.h>

#include "core/errors.h"
#include "core/preset_maps.h"
#include "core/presets.h"
#include "tharness.h"

#define MAX_ROWS 8

struct seen {
	int n;
	struct tly_map_row rows[MAX_ROWS];
	struct tly_map_block blks[MAX_ROWS];
};

static int collect(void *arg, const struct tly_map_block *blk, const struct tly_map_row *row)
{
	struct seen *s = arg;

	if (s->n < MAX_ROWS) {
		s->rows[s->n] = *row;
		s->blks[s->n] = *blk;
	}
	s->n++;
	return PAPI_OK;
}

struct good_case {
	int line;
	const char *text;
	int nrows;
	const char *symbol;   /* first row */
	int derived;
	int nterms;
	const char *native0;
	const char *native_last;
	const char *postfix;
	int npmus;            /* of the first row's block */
	const char *pmu_last; /* last PMU of that block */
	int row_line;         /* line of the first row within the text */
};

static const struct good_case good[] = {
	{__LINE__, "CPU,skl\nPRESET,PAPI_TOT_CYC,NOT_DERIVED,UNHALTED_CORE_CYCLES\n",
	 1, "PAPI_TOT_CYC", TLY_NOT_DERIVED, 1, "UNHALTED_CORE_CYCLES", "UNHALTED_CORE_CYCLES", "", 1, "skl", 2},
	{__LINE__, "# c\n\nCPU,a,b\nCPU,c\nPRESET,PAPI_L1_TCM,DERIVED_ADD,X,Y # tail comment\n",
	 1, "PAPI_L1_TCM", TLY_DERIVED_ADD, 2, "X", "Y", "", 3, "c", 5},
	{__LINE__, "CPU,p\n  PRESET , PAPI_BR_TKN , DERIVED_SUB , A:B , C , D \r\n",
	 1, "PAPI_BR_TKN", TLY_DERIVED_SUB, 3, "A:B", "D", "", 1, "p", 2},
	{__LINE__, "CPU,p\nPRESET,PAPI_FP_OPS,DERIVED_POSTFIX,N0|N1|+|2|*|,E0,E1",
	 1, "PAPI_FP_OPS", TLY_DERIVED_POSTFIX, 2, "E0", "E1", "N0|N1|+|2|*|", 1, "p", 2},
	{__LINE__, "CPU,p\nPRESET,PAPI_FP_OPS,DERIVED_POSTFIX,N0|N1|+,E0,E1\n",
	 1, "PAPI_FP_OPS", TLY_DERIVED_POSTFIX, 2, "E0", "E1", "N0|N1|+", 1, "p", 2},
	{__LINE__, "CPU,p\nPRESET,PAPI_FLOPS_PLACEHOLDER_NOT_USED,NOT_DERIVED,E\n", -1, NULL, 0, 0, NULL, NULL, NULL, 0, NULL, 0},
	{__LINE__, "CPU,p\nPRESET,PAPI_TOT_INS,DERIVED_PS,CYC,INS\n",
	 1, "PAPI_TOT_INS", TLY_DERIVED_PS, 2, "CYC", "INS", "", 1, "p", 2},
	{__LINE__, "CPU,p\nPRESET,PAPI_TOT_INS,DERIVED_ADD_PS,CYC,I1,I2\n",
	 1, "PAPI_TOT_INS", TLY_DERIVED_ADD_PS, 3, "CYC", "I2", "", 1, "p", 2},
	{__LINE__, "CPU,p\nPRESET,PAPI_TOT_INS,DERIVED_CMPD,A,B\n",
	 1, "PAPI_TOT_INS", TLY_DERIVED_CMPD, 2, "A", "B", "", 1, "p", 2},
	{__LINE__, "CPU,p\nPRESET,PAPI_TOT_INS,DERIVED_ADD,A,B,C,D,E,F,G,H\n",
	 1, "PAPI_TOT_INS", TLY_DERIVED_ADD, 8, "A", "H", "", 1, "p", 2},
	{__LINE__, "CPU,*\nPRESET,PAPI_TOT_INS,NOT_DERIVED,perf::TASK-CLOCK\nCPU,q\nPRESET,PAPI_TOT_CYC,NOT_DERIVED,Z\n",
	 2, "PAPI_TOT_INS", TLY_NOT_DERIVED, 1, "perf::TASK-CLOCK", "perf::TASK-CLOCK", "", 1, "*", 2},
	{__LINE__, "", 0, NULL, 0, 0, NULL, NULL, NULL, 0, NULL, 0},
	{__LINE__, "# only a comment\nCPU,x\n", 0, NULL, 0, 0, NULL, NULL, NULL, 0, NULL, 0},
};

static void run_good(const struct good_case *c)
{
	struct seen s = {0};
	int rc;

	th_at(c->line);
	rc = tly_map_parse("t.csv", c->text, collect, &s);
	if (c->nrows < 0) { /* a symbol that is not a preset */
		TH_EQ(rc, PAPI_ENOEVNT);
		TH_CHECK(strstr(tly_err_detail(), "t.csv:2:") != NULL);
		return;
	}
	TH_EQ(rc, PAPI_OK);
	TH_EQ(s.n, c->nrows);
	if (c->nrows == 0 || s.n == 0)
		return;
	TH_CHECK(strcmp(tly_preset_defs[s.rows[0].idx].symbol, c->symbol) == 0);
	TH_EQ(s.rows[0].derived, c->derived);
	TH_EQ(s.rows[0].nterms, c->nterms);
	TH_CHECK(strcmp(s.rows[0].natives[0], c->native0) == 0);
	TH_CHECK(strcmp(s.rows[0].natives[c->nterms - 1], c->native_last) == 0);
	TH_CHECK(strcmp(s.rows[0].postfix, c->postfix) == 0);
	TH_EQ(s.blks[0].npmus, c->npmus);
	TH_CHECK(strcmp(s.blks[0].pmus[s.blks[0].npmus - 1], c->pmu_last) == 0);
	TH_EQ(s.rows[0].line, c->row_line);
}

struct bad_case {
	int line;
	const char *text;
	int rc;
	const char *where;  /* "file:line:" expected in the detail */
	const char *why;    /* a word of the explanation */
};

static const struct bad_case bad[] = {
	{__LINE__, "PRESET,PAPI_TOT_CYC,NOT_DERIVED,X\n", PAPI_EINVAL, "t.csv:1:", "before any CPU"},
	{__LINE__, "CPU\n", PAPI_EINVAL, "t.csv:1:", "names no PMU"},
	{__LINE__, "CPU,a,,b\n", PAPI_EINVAL, "t.csv:1:", "empty PMU"},
	{__LINE__, "CPU,a\nEVENT,PAPI_TOT_CYC,NOT_DERIVED,X\n", PAPI_EINVAL, "t.csv:2:", "neither CPU nor PRESET"},
	{__LINE__, "CPU,a\nPRESET,PAPI_TOT_CYC,NOT_DERIVED\n", PAPI_EINVAL, "t.csv:2:", "needs a symbol"},
	{__LINE__, "CPU,a\nPRESET,PAPI_NOPE,NOT_DERIVED,X\n", PAPI_ENOEVNT, "t.csv:2:", "PAPI_NOPE"},
	{__LINE__, "CPU,a\n\n#\nPRESET,PAPI_TOT_CYC,DERIVED_MUL,X,Y\n", PAPI_EINVAL, "t.csv:4:", "DERIVED_MUL"},
	{__LINE__, "CPU,a\nPRESET,PAPI_TOT_CYC,NOT_DERIVED,X,Y\n", PAPI_EINVAL, "t.csv:2:", "natives"},
	{__LINE__, "CPU,a\nPRESET,PAPI_TOT_CYC,DERIVED_ADD,X\n", PAPI_EINVAL, "t.csv:2:", "natives"},
	{__LINE__, "CPU,a\nPRESET,PAPI_TOT_CYC,DERIVED_SUB,X,\n", PAPI_EINVAL, "t.csv:2:", "empty native"},
	{__LINE__, "CPU,a\nPRESET,PAPI_TOT_CYC,DERIVED_ADD,A,B,C,D,E,F,G,H,I\n", PAPI_EINVAL, "t.csv:2:", "natives"},
	{__LINE__, "CPU,a\nPRESET,PAPI_TOT_CYC,DERIVED_PS,A\n", PAPI_EINVAL, "t.csv:2:", "natives"},
	{__LINE__, "CPU,a\nPRESET,PAPI_TOT_CYC,DERIVED_ADD_PS,A,B\n", PAPI_EINVAL, "t.csv:2:", "natives"},
	{__LINE__, "CPU,a\nPRESET,PAPI_FP_OPS,DERIVED_POSTFIX,N0|N1|+|,A\n", PAPI_EINVAL, "t.csv:2:", "N1"},
	{__LINE__, "CPU,a\nPRESET,PAPI_FP_OPS,DERIVED_POSTFIX,N0|+|,A\n", PAPI_EINVAL, "t.csv:2:", "operand"},
	{__LINE__, "CPU,a\nPRESET,PAPI_FP_OPS,DERIVED_POSTFIX,N0|N1|,A,B\n", PAPI_EINVAL, "t.csv:2:", "2 values"},
	{__LINE__, "CPU,a\nPRESET,PAPI_FP_OPS,DERIVED_POSTFIX,N0|x|+|,A\n", PAPI_EINVAL, "t.csv:2:", "'x'"},
	{__LINE__, "CPU,a\nPRESET,PAPI_FP_OPS,DERIVED_POSTFIX,N0||N0|+|,A\n", PAPI_EINVAL, "t.csv:2:", "length 0"},
	{__LINE__, "CPU,a\nPRESET,PAPI_FP_OPS,DERIVED_POSTFIX,,A\n", PAPI_EINVAL, "t.csv:2:", "empty"},
	{__LINE__, "CPU,a\nPRESET,PAPI_FP_OPS,DERIVED_POSTFIX,N8|,A\n", PAPI_EINVAL, "t.csv:2:", "N8"},
	{__LINE__, "CPU,a\nPRESET,PAPI_FP_OPS,DERIVED_POSTFIX,N0|N0|N0|N0|N0|N0|N0|N0|N0|N0|N0|N0|N0|N0|N0|N0|N0|"
		   "+|+|+|+|+|+|+|+|+|+|+|+|+|+|+|+|,A\n", PAPI_EINVAL, "t.csv:2:", "deeper"},
	{__LINE__, "CPU,a\nPRESET,PAPI_FP_OPS,DERIVED_POSTFIX,99999999999999999999999|,A\n", PAPI_EINVAL, "t.csv:2:", "integer"},
};

static void run_bad(const struct bad_case *c)
{
	struct seen s = {0};
	int rc;

	th_at(c->line);
	tly_err_clear();
	rc = tly_map_parse("t.csv", c->text, collect, &s);
	TH_EQ(rc, c->rc);
	TH_CHECK(strstr(tly_err_detail(), c->where) != NULL);
	TH_CHECK(strstr(tly_err_detail(), c->why) != NULL);
	if (rc == PAPI_OK || !strstr(tly_err_detail(), c->why))
		fprintf(stderr, "  detail: %s\n", tly_err_detail());
}

/* A line over the limit is refused, not truncated into something else. */
static void long_line(void)
{
	static char text[2 * TLY_MAP_LINE_MAX];

	th_at(__LINE__);
	strcpy(text, "CPU,a\nPRESET,PAPI_TOT_CYC,NOT_DERIVED,");
	memset(text + strlen(text), 'E', TLY_MAP_LINE_MAX);
	TH_EQ(tly_map_parse("t.csv", text, NULL, NULL), PAPI_EINVAL);
	TH_CHECK(strstr(tly_err_detail(), "t.csv:2:") != NULL);
}

/* Every embedded map parses and contributes rows. */
static void embedded(void)
{
	int total = 0;

	th_at(__LINE__);
	TH_CHECK(tly_num_preset_maps >= 3);
	for (int m = 0; m < tly_num_preset_maps; m++) {
		struct seen s = {0};
		int rc = tly_map_parse(tly_preset_maps[m].file, tly_preset_maps[m].text, collect, &s);

		TH_EQ(rc, PAPI_OK);
		if (rc != PAPI_OK)
			fprintf(stderr, "  %s\n", tly_err_detail());
		TH_CHECK(s.n >= 5); /* the smallest, ix86arch's, has 9 rows */
		total += s.n;
	}
	TH_CHECK(total > 300);
}

int main(void)
{
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
		run_good(&good[i]);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		run_bad(&bad[i]);
	long_line();
	embedded();
	return th_done();
}

/*
 * preset_derive.c - values of derived presets: ADD, SUB, postfix programs,
 * per-second rates and compound events.
 */
#include "core/preset_derive.h"

#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "core/sysinfo.h"

static const char *const kind_names[TLY_DERIVED_NKINDS] = {
	[TLY_NOT_DERIVED] = "NOT_DERIVED",
	[TLY_DERIVED_ADD] = "DERIVED_ADD",
	[TLY_DERIVED_SUB] = "DERIVED_SUB",
	[TLY_DERIVED_POSTFIX] = "DERIVED_POSTFIX",
	[TLY_DERIVED_PS] = "DERIVED_PS",
	[TLY_DERIVED_ADD_PS] = "DERIVED_ADD_PS",
	[TLY_DERIVED_CMPD] = "DERIVED_CMPD",
};

const char *tly_derived_name(int derived)
{
	if (derived < 0 || derived >= TLY_DERIVED_NKINDS)
		return "";
	return kind_names[derived];
}

int tly_derived_kind(const char *name)
{
	if (!name)
		return -1;
	for (int i = 0; i < TLY_DERIVED_NKINDS; i++)
		if (strcmp(name, kind_names[i]) == 0)
			return i;
	return -1;
}

/* Counters wrap rather than trap: do the arithmetic unsigned, where
 * overflow is defined, and convert back. */
static long long wrap_add(long long a, long long b)
{
	return (long long)((unsigned long long)a + (unsigned long long)b);
}

static long long wrap_sub(long long a, long long b)
{
	return (long long)((unsigned long long)a - (unsigned long long)b);
}

static long long wrap_mul(long long a, long long b)
{
	return (long long)((unsigned long long)a * (unsigned long long)b);
}

static long long safe_div(long long a, long long b)
{
	if (b == 0)
		return 0; /* a rate over an empty interval reads as nothing */
	if (b == -1)
		return wrap_sub(0, a); /* LLONG_MIN / -1 would trap */
	return a / b;
}

/* One token: N<i>, an optional-sign decimal integer, or an operator. */
static int compile_token(const char *tok, size_t len, int nterms, struct tly_pf_op *op)
{
	char buf[32];
	char *end;

	if (len == 0 || len >= sizeof buf)
		return tly_err_set(PAPI_EINVAL, "postfix token of length %zu is not valid", len);
	memcpy(buf, tok, len);
	buf[len] = '\0';
	if (len == 1 && strchr("+-*/", buf[0])) {
		op->kind = buf[0] == '+' ? TLY_PF_ADD : buf[0] == '-' ? TLY_PF_SUB
			 : buf[0] == '*' ? TLY_PF_MUL : TLY_PF_DIV;
		return PAPI_OK;
	}
	if (buf[0] == 'N' && len == 2 && buf[1] >= '0' && buf[1] <= '7') {
		op->kind = TLY_PF_TERM;
		op->term = buf[1] - '0';
		if (op->term >= nterms)
			return tly_err_set(PAPI_EINVAL, "postfix term %s refers to a native that is not given (%d natives)",
					   buf, nterms);
		return PAPI_OK;
	}
	errno = 0;
	op->k = strtoll(buf, &end, 10);
	if (*end != '\0' || end == buf || errno == ERANGE)
		return tly_err_set(PAPI_EINVAL, "postfix token '%s' is neither N0..N7, an integer nor + - * /", buf);
	op->kind = TLY_PF_CONST;
	return PAPI_OK;
}

/* Simulating the stack depth here is what lets evaluation skip every check. */
static int check_depth(const struct tly_pf_prog *prog)
{
	int depth = 0;

	for (int i = 0; i < prog->nops; i++) {
		int k = prog->ops[i].kind;

		depth += (k == TLY_PF_TERM || k == TLY_PF_CONST) ? 1 : -1;
		if (depth < 1)
			return tly_err_set(PAPI_EINVAL, "postfix operator %d has fewer than two operands", i + 1);
		if (depth > TLY_PF_MAX_DEPTH)
			return tly_err_set(PAPI_EINVAL, "postfix expression needs a stack deeper than %d",
					   TLY_PF_MAX_DEPTH);
	}
	if (depth != 1)
		return tly_err_set(PAPI_EINVAL, "postfix expression leaves %d values instead of one", depth);
	return PAPI_OK;
}

int tly_postfix_compile(const char *expr, int nterms, struct tly_pf_prog *prog)
{
	const char *p;

	if (!expr || !prog || nterms < 1 || nterms > TLY_MAX_TERMS)
		return tly_err_set(PAPI_EINVAL, "postfix expression needs 1 to %d natives", TLY_MAX_TERMS);
	prog->nops = 0;
	for (p = expr; *p;) {
		size_t len = strcspn(p, "|");
		int rc;

		if (prog->nops == TLY_PF_MAX_OPS)
			return tly_err_set(PAPI_EINVAL, "postfix expression has more than %d tokens", TLY_PF_MAX_OPS);
		rc = compile_token(p, len, nterms, &prog->ops[prog->nops]);
		if (rc != PAPI_OK)
			return rc;
		prog->nops++;
		p += len;
		if (*p == '|')
			p++;
	}
	if (prog->nops == 0)
		return tly_err_set(PAPI_EINVAL, "postfix expression is empty");
	return check_depth(prog);
}

long long tly_postfix_eval(const struct tly_pf_prog *prog, const long long *terms)
{
	long long st[TLY_PF_MAX_DEPTH];
	int sp = 0;

	for (int i = 0; i < prog->nops; i++) {
		const struct tly_pf_op *op = &prog->ops[i];

		switch (op->kind) {
		case TLY_PF_TERM: st[sp++] = terms[op->term]; continue;
		case TLY_PF_CONST: st[sp++] = op->k; continue;
		case TLY_PF_ADD: st[sp - 2] = wrap_add(st[sp - 2], st[sp - 1]); break;
		case TLY_PF_SUB: st[sp - 2] = wrap_sub(st[sp - 2], st[sp - 1]); break;
		case TLY_PF_MUL: st[sp - 2] = wrap_mul(st[sp - 2], st[sp - 1]); break;
		default: st[sp - 2] = safe_div(st[sp - 2], st[sp - 1]); break;
		}
		sp--;
	}
	return sp == 1 ? st[0] : 0;
}

/* units counted over `cycles` cycles, as a rate per second of the cycle clock */
static long long per_second(long long units, long long cycles)
{
	double mhz = tly_cyc_mhz();

	if (cycles <= 0 || mhz <= 0.0)
		return 0;
	return (long long)((double)units * mhz * 1e6 / (double)cycles);
}

long long tly_preset_value(const struct tly_preset *p, const long long *terms)
{
	long long v;

	switch (p->derived) {
	case TLY_DERIVED_ADD:
		v = terms[0];
		for (int i = 1; i < p->nterms; i++)
			v = wrap_add(v, terms[i]);
		return v;
	case TLY_DERIVED_SUB:
		v = terms[0];
		for (int i = 1; i < p->nterms; i++)
			v = wrap_sub(v, terms[i]);
		return v;
	case TLY_DERIVED_POSTFIX:
		return tly_postfix_eval(&p->prog, terms);
	case TLY_DERIVED_PS:
		return per_second(terms[1], terms[0]);
	case TLY_DERIVED_ADD_PS:
		v = 0;
		for (int i = 1; i < p->nterms; i++)
			v = wrap_add(v, terms[i]);
		return per_second(v, terms[0]);
	default: /* NOT_DERIVED and CMPD: the first term is the value */
		return terms[0];
	}
}

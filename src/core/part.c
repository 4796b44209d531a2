/*
 * part.c - driving the per-component control states of an event set.
 */
#include "core/part.h"

#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "core/cmp_registry.h"
#include "core/native.h"
#include "core/overflow.h"

void tly_evset_default_opts(struct tly_ctl_opts *opts, int cidx)
{
	const PAPI_component_info_t *info = tly_cmp_info(cidx < 0 ? 0 : cidx);

	memset(opts, 0, sizeof *opts);
	opts->domain = info && info->default_domain ? info->default_domain : PAPI_DOM_USER;
	opts->granularity = info && info->default_granularity ? info->default_granularity : PAPI_GRN_THR;
	opts->inherit = PAPI_INHERIT_NONE;
	opts->cpu = -1;
}

/* Zero the PAPI_write offsets; only sets that were written have any, so
 * the hot paths (start, reset) clear nothing otherwise. */
void tly_evset_clear_offsets(struct tly_evset *es)
{
	if (!es->has_offset)
		return;
	memset(es->a->offset, 0, (size_t)es->nnative * sizeof es->a->offset[0]);
	es->has_offset = 0;
}

void tly_part_free(struct tly_part *p)
{
	const struct tly_component *c = tly_cmp(p->cidx);

	if (p->ctl && c && c->ctl_cleanup)
		c->ctl_cleanup(p->ctl);
	free(p->ctl);
	memset(p, 0, sizeof *p);
}

static struct tly_part *part_for(struct tly_evset *es, int cidx)
{
	const struct tly_component *c = tly_cmp(cidx);
	struct tly_part *p;

	for (int i = 0; i < es->nparts; i++)
		if (es->a->part[i].cidx == cidx)
			return &es->a->part[i];
	if (es->nparts >= TLY_MAX_PARTS) {
		tly_err_set(PAPI_ECOMBO, "event set %d mixes more than %d components", es->id, TLY_MAX_PARTS);
		return NULL;
	}
	p = &es->a->part[es->nparts];
	memset(p, 0, sizeof *p);
	p->cidx = cidx;
	p->read = c->ctl_read;
	p->reset = c->ctl_reset;
	p->base = -1;
	p->ctl = calloc(1, c->ctl_size ? c->ctl_size : 1);
	if (!p->ctl) {
		tly_err_set(PAPI_ENOMEM, "out of memory for component control state");
		return NULL;
	}
	if (c->ctl_init && c->ctl_init(p->ctl, &es->opts) != PAPI_OK) {
		free(p->ctl);
		p->ctl = NULL;
		return NULL;
	}
	es->nparts++;
	return p;
}

/* Program one part with its natives' canonical names. */
static int program(struct tly_part *p, const struct tly_evset *es)
{
	static const int name_len = PAPI_MAX_STR_LEN;
	char (*names)[PAPI_MAX_STR_LEN] = malloc((size_t)(p->n ? p->n : 1) * name_len);
	const char *ptrs[TLY_MAX_NATIVES];
	int rc = PAPI_OK;

	if (!names)
		return tly_err_set(PAPI_ENOMEM, "out of memory programming event set %d", es->id);
	for (int k = 0; k < p->n && rc == PAPI_OK; k++) {
		rc = tly_native_get(es->a->native[p->idx[k]], NULL, NULL, names[k], name_len);
		ptrs[k] = names[k];
	}
	if (rc == PAPI_OK)
		rc = tly_cmp(p->cidx)->ctl_update(p->ctl, ptrs, p->n);
	free(names);
	return rc;
}

static void hot_copies(struct tly_part *p)
{
	p->read = tly_cmp(p->cidx)->ctl_read;
	p->reset = tly_cmp(p->cidx)->ctl_reset;
	p->base = p->idx[0];
	for (int k = 1; k < p->n; k++)
		if (p->idx[k] != p->base + k)
			p->base = -1;
}

int tly_parts_update(struct tly_evset *es)
{
	int rc = PAPI_OK;

	for (int i = 0; i < es->nparts; i++) {
		es->a->part[i].n = 0;
		es->a->part[i].base = -1;
	}
	for (int i = 0; i < es->nnative; i++) {
		struct tly_part *p = part_for(es, es->a->native_cidx[i]);

		if (!p)
			return tly_err_detail()[0] ? PAPI_ENOMEM : PAPI_EBUG;
		p->idx[p->n++] = i;
	}
	for (int i = 0; i < es->nparts;) {
		if (es->a->part[i].n == 0) {
			tly_part_free(&es->a->part[i]);
			memmove(&es->a->part[i], &es->a->part[i + 1], (size_t)(es->nparts - i - 1) * sizeof es->a->part[0]);
			es->nparts--;
			continue;
		}
		rc = program(&es->a->part[i], es);
		if (rc != PAPI_OK)
			return rc;
		hot_copies(&es->a->part[i]);
		i++;
	}
	/* re-programming drops the components' overflow settings */
	if (es->state & (PAPI_OVERFLOWING | PAPI_PROFILING))
		rc = tly_ovf_reapply(es);
	return rc;
}

int tly_parts_start(struct tly_evset *es)
{
	for (int i = 0; i < es->nparts; i++) {
		int rc = tly_cmp(es->a->part[i].cidx)->ctl_start(es->a->part[i].ctl);

		if (rc != PAPI_OK) {
			while (--i >= 0)
				tly_cmp(es->a->part[i].cidx)->ctl_stop(es->a->part[i].ctl);
			return rc;
		}
	}
	return PAPI_OK;
}

int tly_parts_stop(struct tly_evset *es)
{
	int rc = PAPI_OK;

	for (int i = 0; i < es->nparts; i++) {
		int r = tly_cmp(es->a->part[i].cidx)->ctl_stop(es->a->part[i].ctl);

		if (r != PAPI_OK && rc == PAPI_OK)
			rc = r;
	}
	return rc;
}

/* A part whose natives are not contiguous in raw: through a buffer,
 * out of line so that the usual path sets up no frame for it. */
static __attribute__((noinline)) int read_scattered(const struct tly_part *p, long long *raw)
{
	long long buf[TLY_MAX_NATIVES];
	int rc = p->read(p->ctl, buf);

	for (int k = 0; rc == PAPI_OK && k < p->n; k++)
		raw[p->idx[k]] = buf[k];
	return rc;
}

/* The hot path: one component read per part, into raw directly when the
 * part's natives are contiguous, then the PAPI_write offsets if any. */
static inline int read_parts(struct tly_evset *es, long long *raw)
{
	for (int i = 0; i < es->nparts; i++) {
		const struct tly_part *p = &es->a->part[i];
		int rc = p->base >= 0 ? p->read(p->ctl, raw + p->base) : read_scattered(p, raw);

		if (rc != PAPI_OK)
			return rc;
	}
	if (es->has_offset)
		for (int n = 0; n < es->nnative; n++)
			raw[n] += es->a->offset[n];
	return PAPI_OK;
}

int tly_parts_read(struct tly_evset *es)
{
	return read_parts(es, es->a->raw);
}

int tly_parts_read_into(struct tly_evset *es, long long *raw)
{
	return read_parts(es, raw);
}

int tly_parts_coverage(struct tly_evset *es, double *fractions)
{
	double buf[TLY_MAX_NATIVES];

	for (int i = 0; i < es->nparts; i++) {
		const struct tly_part *p = &es->a->part[i];
		const struct tly_component *c = tly_cmp(p->cidx);
		int rc = PAPI_OK;

		for (int k = 0; k < p->n; k++)
			buf[k] = 1.0;
		if (c->ctl_mpx_coverage && (es->state & PAPI_MULTIPLEXING))
			rc = c->ctl_mpx_coverage(p->ctl, buf);
		if (rc != PAPI_OK)
			return rc;
		for (int k = 0; k < p->n; k++)
			fractions[p->idx[k]] = buf[k];
	}
	return PAPI_OK;
}

int tly_parts_reset(struct tly_evset *es)
{
	for (int i = 0; i < es->nparts; i++) {
		const struct tly_part *p = &es->a->part[i];
		int rc = p->reset ? p->reset(p->ctl) : PAPI_ECMP;

		if (rc != PAPI_OK)
			return rc;
	}
	if (es->has_offset)
		tly_evset_clear_offsets(es);
	return PAPI_OK;
}

int tly_parts_set_opts(struct tly_evset *es, const struct tly_ctl_opts *opts)
{
	for (int i = 0; i < es->nparts; i++) {
		const struct tly_component *c = tly_cmp(es->a->part[i].cidx);
		int rc;

		if (!c->ctl_set_opts)
			return tly_err_set(PAPI_ECMP, "component %s cannot change counting options", c->name);
		rc = c->ctl_set_opts(es->a->part[i].ctl, opts);
		if (rc != PAPI_OK)
			return rc;
	}
	return PAPI_OK;
}

/*
 * rt_pcsamp.c - the runtime's side of GPU PC sampling: turn automatic
 * sampling on at start-up and, at the final write, disable every sampled
 * context (which drains what CUPTI still holds) and name its stall
 * reasons.  A failure is logged once; the application goes on.
 */
#include "gpu/rt_pcsamp.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tally_shared.h"
#include "papi.h"
#include "runtime/rt.h"

static struct {
	pthread_mutex_t lock;
	int on, harvested, n;
	struct tly_pcs_ctx c[TLY_PCS_MAX_CTX];
} ps = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* After the runtime has started (and with it the GPU component of its
 * counter library): automatic sampling of the current context and of
 * every context created later. */
__attribute__((constructor)) static void tly_pcs_rt_start(void)
{
	const char *d;
	int rc;

	if (!tly_rt_enabled() || tly_parse_bool(tly_rt_proc()->opt.raw.pcsamp) != 1)
		return;
	rc = tally_gpu_pcsampling_auto();
	if (rc != PAPI_OK) {
		d = tly_err_detail();
		tly_rt_log(1, "GPU PC sampling off: %s", d && *d ? d : PAPI_strerror(rc));
		return;
	}
	ps.on = 1;
	tly_rt_log(2, "GPU PC sampling on (automatic, every CUDA context)");
}

int tly_pcs_rt_on(void)
{
	return ps.on;
}

/* Short reason names and the "_not_issued" flags of one context. */
static void describe(struct tly_pcs_ctx *c)
{
	char full[256];

	if (tally_gpu_pcsampling_num_stall_reasons(c->ctx, &c->nreasons) != PAPI_OK || c->nreasons <= 0)
		return;
	c->reason = calloc((size_t)c->nreasons, sizeof *c->reason);
	c->not_issued = calloc((size_t)c->nreasons, 1);
	if (!c->reason || !c->not_issued) {
		c->nreasons = 0;
		return;
	}
	for (int i = 0; i < c->nreasons; i++) {
		const char *s;
		size_t l;

		full[0] = '\0';
		tally_gpu_pcsampling_stall_reason(c->ctx, i, full, sizeof full, NULL);
		s = strstr(full, "_stalled_");
		snprintf(c->reason[i], sizeof c->reason[i], "%s", s ? s + 9 : full);
		l = strlen(full);
		c->not_issued[i] = l > 11 && !strcmp(full + l - 11, "_not_issued");
	}
}

int tly_pcs_rt_harvest(const struct tly_pcs_ctx **ctxs)
{
	void *v[TLY_PCS_MAX_CTX];
	int n = TLY_PCS_MAX_CTX;

	pthread_mutex_lock(&ps.lock);
	if (ps.on && !ps.harvested && tally_gpu_pcsampling_contexts(v, &n) == PAPI_OK) {
		n = n < TLY_PCS_MAX_CTX ? n : TLY_PCS_MAX_CTX;
		for (int i = 0; i < n; i++) {
			struct tly_pcs_ctx *c = &ps.c[ps.n];

			/* already disabled at context teardown: records stay readable */
			tally_gpu_pcsampling_disable(v[i]);
			c->ctx = v[i];
			c->st.size = sizeof c->st;
			if (tally_gpu_pcsampling_get_stats(v[i], &c->st) != PAPI_OK)
				continue;
			describe(c);
			ps.n++;
		}
	}
	ps.harvested = 1;
	*ctxs = ps.c;
	n = ps.n;
	pthread_mutex_unlock(&ps.lock);
	return n;
}

const char *tly_pcs_rt_status(void)
{
	return ps.on ? tally_gpu_pcsampling_auto_status() : "";
}

long tly_pcs_rt_owner_pid(void)
{
	const char *s = strstr(tly_pcs_rt_status(), "sampled by process ");

	return s ? strtol(s + 19, NULL, 10) : 0;
}

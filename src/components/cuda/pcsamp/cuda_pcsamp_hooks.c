/*
 * cuda_pcsamp_hooks.c - what the CUPTI subscriber (common/cuda_callbacks.c)
 * tells PC sampling: module loads (cubins, for source lines), module
 * unloads and context teardown (drain first), kernel launches (names, for
 * kernel-serialized sessions).
 */
#include "cuda_pcsamp_internal.h"

#include <stdio.h>

int tly_cu_pcs_wants_cubins(void)
{
	int w;

	if (tly_pcs_held())
		return tly_pcs_reg.want_cubins;
	tly_pcs_lock();
	w = tly_pcs_reg.want_cubins;
	tly_pcs_unlock();
	return w;
}

void tly_cu_pcs_module_loaded(CUcontext ctx, const void *cubin, size_t size)
{
	double t0;
	int kept;

	(void)ctx;
	if (!tly_cu_pcs_wants_cubins())
		return;
	t0 = tly_cu_time_start();
	kept = tly_pcs_cubin_add(cubin, size);
	if (t0 != 0) {
		char what[96];

		snprintf(what, sizeof what, "PC sampling: module loaded, cubin of %zu bytes %s", size,
			 kept ? "kept" : "without line information, not kept");
		tly_cu_time_end(what, t0);
	}
}

/* Continuous mode needs a drain before a module's PCs can be reused. */
void tly_cu_pcs_module_unloading(CUcontext ctx)
{
	if (tly_pcs_held())
		return;   /* inside our own CUPTI call */
	tly_pcs_lock();
	for (struct tly_pcs_sess *s = tly_pcs_reg.head; s; s = s->next)
		if (s->ctx == ctx && s->enabled)
			tly_pcs_data_drain(s->data, s->ctx);
	tly_pcs_unlock();
}

void tly_cu_pcs_ctx_destroying(CUcontext ctx)
{
	if (tly_pcs_held())
		return;
	tly_pcs_lock();
	for (struct tly_pcs_sess *s = tly_pcs_reg.head; s; s = s->next)
		if (s->ctx == ctx)
			tly_pcs_disable_locked(s);
	tly_pcs_unlock();
}

void tly_cu_pcs_note_launch(CUcontext ctx, uint32_t correlation_id, const char *name)
{
	int on;

	(void)ctx;
	if (tly_pcs_held()) {
		on = tly_pcs_reg.serialized;
	} else {
		tly_pcs_lock();
		on = tly_pcs_reg.serialized;
		tly_pcs_unlock();
	}
	if (on)
		tly_pcs_launch_add(correlation_id, name);
}

static const struct tly_cu_cb_follower follower = {
	.note_launch = tly_cu_pcs_note_launch,
	.module_loaded = tly_cu_pcs_module_loaded,
	.module_unloading = tly_cu_pcs_module_unloading,
	.ctx_destroying = tly_cu_pcs_ctx_destroying,
};

void tly_pcs_follow(void)
{
	tly_cu_cb_follow(&follower);
}

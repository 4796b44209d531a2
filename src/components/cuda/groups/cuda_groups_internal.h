/*
 * cuda_groups_internal.h - interfaces between the files of the event-group
 * API (components/cuda/groups/, tally_gpu_* of tally_gpu.h).
 *
 *   cuda_devices_events.c  devices, domains, events
 *   cuda_event_group.c     one event group: create, add/remove, enable,
 *                          read, attributes
 *   cuda_group_sets.c      group sets (the passes of an event list) and the
 *                          range profiler session several groups share
 *   cuda_context_modes.c   per-context kernel replay, application replay
 *                          pass, collection mode
 *   cuda_kernel_rows.c     a group's per-kernel rows between two reads
 */
#ifndef TALLY_CUDA_GROUPS_INTERNAL_H
#define TALLY_CUDA_GROUPS_INTERNAL_H

#include "components/cuda/common/cuda_internal.h"

/* ---- groups (cuda_event_group.c), shared sessions (cuda_group_sets.c) ---- */
struct tly_cu_shared;   /* one collection feeding several groups */

int tly_cu_group_nevents(tally_gpu_group_t g);
const char *tly_cu_group_event_name(tally_gpu_group_t g, int i);
CUcontext tly_cu_group_ctx(tally_gpu_group_t g);
int tly_cu_group_device(tally_gpu_group_t g);
int tly_cu_group_enabled(tally_gpu_group_t g);
struct tly_cu_shared *tly_cu_group_shared(tally_gpu_group_t g);
/* Mark a group as fed by a shared collection (NULL: detach), harvested
 * through `harvest` (cuda_group_sets.c's, which the group calls back). */
void tly_cu_group_set_shared(tally_gpu_group_t g, struct tly_cu_shared *sh, int kernel_mode,
			     int (*harvest)(struct tly_cu_shared *sh));
/* One range's values of the group's events. */
void tly_cu_group_add_range(tally_gpu_group_t g, const char *name, const double *vals);
int tly_cu_group_new(CUcontext ctx, int dev, tally_gpu_group_t *out);

/* ---- per-kernel rows (cuda_kernel_rows.c) ---------------------------------- */
struct tly_cu_krows {
	size_t n, head, cap;  /* rows added, rows already read, room */
	int nv;               /* values per row */
	const char **row;     /* row -> interned name */
	double *v;            /* cap x nv */
	char **names;         /* interned names (open addressing) */
	size_t nnames, ncap;
};

/* Append a row (0; -1 when out of memory: the row is not kept). */
int tly_cu_krows_add(struct tly_cu_krows *k, const char *name, const double *vals, int nv);
size_t tly_cu_krows_pending(const struct tly_cu_krows *k);
/* Move up to max rows from the front: names cut to name_len, or whole
 * malloc'ed copies (dups), and values (each may be NULL); the number. */
size_t tly_cu_krows_take(struct tly_cu_krows *k, size_t max, int nv, char *names, size_t name_len, char **dups,
			 double *values);
void tly_cu_krows_clear(struct tly_cu_krows *k);
void tly_cu_krows_free(struct tly_cu_krows *k);

#endif /* TALLY_CUDA_GROUPS_INTERNAL_H */

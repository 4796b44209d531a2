/*
 * rt_ompname.c - names of OpenMP regions by code address, shared by the
 * two OpenMP producers: the OMPT tool (ompt/, LLVM and Intel runtimes) and
 * the libgomp entry points (gomp/, GCC's runtime), so a region is called
 * the same whichever runtime the program runs on.  A name is made once
 * per (code address, kind) under a lock (the DWARF lookup of
 * rt_srcname.c) and kept for the process; later lookups hit a cache in
 * the thread's record without the lock (a thread without one, or a name
 * the cache has no room for, takes it).
 */
#include "runtime/rt.h"
#include "runtime/rt_srcname.h"

#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct name_ent {
	const void *code;
	int kind;
	char *name;
	struct name_ent *next;
};

static struct {
	pthread_mutex_t lock;
	struct name_ent *names;
} omp_names = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* the program's call a GOMP_* wrapper is forwarding to LLVM's libomp */
static _Thread_local const void *forwarding __attribute__((tls_model("initial-exec")));
/* Tally's own code: [lo, hi) */
static struct {
	pthread_once_t once;
	uintptr_t lo, hi;
} self = { .once = PTHREAD_ONCE_INIT };

static int self_range(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size; (void)arg;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && (uintptr_t)self_range >= lo
		    && (uintptr_t)self_range < lo + ph->p_memsz) {
			self.lo = lo;
			self.hi = lo + ph->p_memsz;
			return 1;
		}
	}
	return 0;
}

static void find_self(void)
{
	dl_iterate_phdr(self_range, NULL);
}

void tly_rt_omp_forwarding(const void *caller)
{
	forwarding = caller;
}

/* The cache's first slot for (code, kind): call sites a few bytes apart
 * and the two kinds of one site (a combined parallel loop) land apart. */
static size_t slot(const void *code, int kind)
{
	uint64_t k = ((uint64_t)(uintptr_t)code ^ (uint64_t)kind << 56) * 0x9e3779b97f4a7c15ULL;

	_Static_assert((TLY_RT_OMP_NAMES & (TLY_RT_OMP_NAMES - 1)) == 0, "TLY_RT_OMP_NAMES is a power of two");
	return (size_t)(k >> 56) & (TLY_RT_OMP_NAMES - 1);
}

/* A name is kept in the first free slot of the PROBES from its own
 * (linear probing; names are never evicted).  One slot per name thrashed:
 * ~70 names in 256 slots put ~9 pairs in one slot each, and two regions
 * of one loop sharing a slot missed at every visit (LULESH 8 x 1: 34% of
 * this function's time in the locked list walk).  A name that finds all
 * its slots taken by others is looked up under the lock. */
#define PROBES 8

/* The thread's cached name of (code, kind), or NULL; *free_at: the first
 * empty slot met (NULL when none). */
static const char *cached(struct tly_rt_thread *t, const void *code, int kind, struct tly_rt_omp_name_ent **free_at)
{
	size_t at = slot(code, kind);

	*free_at = NULL;
	for (int i = 0; i < PROBES; i++, at = (at + 1) & (TLY_RT_OMP_NAMES - 1)) {
		struct tly_rt_omp_name_ent *c = &t->omp_names[at];

		if (!c->name) {
			*free_at = c;
			return NULL;
		}
		if (c->code == code && c->kind == kind)
			return c->name;
	}
	return NULL;
}

const char *tly_rt_omp_label(int kind)
{
	return kind == TLY_RK_OMP_LOOP ? "omp loop" : kind == TLY_RK_OMP_BARRIER ? "omp barrier wait"
						      : "omp parallel";
}

const char *tly_rt_omp_name(const void *code, int kind)
{
	struct tly_rt_thread *t = tly_rt_self_tls;   /* the cache is in the thread's record */
	struct tly_rt_omp_name_ent *c = NULL;
	const void *fwd = forwarding;
	struct name_ent *e;
	char buf[TLY_RT_NAME], src[TLY_RT_NAME - 32], raw[64];

	/* libomp below Tally's GOMP_* wrappers reports the wrapper's call as
	 * the code address: the program's call is the one being forwarded
	 * (Tally's own range is looked up only then, not on libgomp's path) */
	if (fwd) {
		pthread_once(&self.once, find_self);
		if ((uintptr_t)code >= self.lo && (uintptr_t)code < self.hi)
			code = fwd;
	}
	if (t) {
		const char *hit = cached(t, code, kind, &c);

		if (hit)
			return hit;
	}
	pthread_mutex_lock(&omp_names.lock);
	for (e = omp_names.names; e && !(e->code == code && e->kind == kind); e = e->next)
		;
	if (!e && (e = calloc(1, sizeof *e))) {
		/* a return address: the call before it is named */
		tly_rt_srcname(code, 1, src, sizeof src, raw, sizeof raw);
		tly_rt_name_with_address(buf, sizeof buf, tly_rt_omp_label(kind), src, raw);
		e->code = code;
		e->kind = kind;
		e->name = strdup(buf);
		e->next = omp_names.names;
		omp_names.names = e;
	}
	pthread_mutex_unlock(&omp_names.lock);
	if (!e || !e->name)
		return tly_rt_omp_label(kind);
	if (c) {
		c->code = code;
		c->kind = kind;
		c->name = e->name;
	}
	return e->name;
}

/*
 * rt_ompname.c - names of OpenMP regions by code address, shared by the
 * two OpenMP producers: the OMPT tool (ompt/, LLVM and Intel runtimes) and
 * the libgomp entry points (gomp/, GCC's runtime), so a region is called
 * the same whichever runtime the program runs on.  A name is made once
 * per (code address, kind) under a lock (the DWARF lookup of
 * rt_srcname.c) and kept for the process; later lookups hit a per-thread
 * cache without the lock.
 */
#include "runtime/rt.h"
#include "runtime/rt_srcname.h"

#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CACHE 64

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

static _Thread_local struct { const void *code; int kind; const char *name; } cache[CACHE];
/* the program's call a GOMP_* wrapper is forwarding to LLVM's libomp */
static _Thread_local const void *forwarding;
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

const char *tly_rt_omp_label(int kind)
{
	return kind == TLY_RK_OMP_LOOP ? "omp loop" : kind == TLY_RK_OMP_BARRIER ? "omp barrier wait"
						      : "omp parallel";
}

const char *tly_rt_omp_name(const void *code, int kind)
{
	size_t h = ((uintptr_t)code >> 2 ^ (size_t)kind) % CACHE;
	struct name_ent *e;
	char buf[TLY_RT_NAME], src[TLY_RT_NAME - 32], raw[64];

	/* libomp below Tally's GOMP_* wrappers reports the wrapper's call as
	 * the code address: the program's call is the one being forwarded */
	pthread_once(&self.once, find_self);
	if (forwarding && (uintptr_t)code >= self.lo && (uintptr_t)code < self.hi) {
		code = forwarding;
		h = ((uintptr_t)code >> 2 ^ (size_t)kind) % CACHE;
	}
	if (cache[h].code == code && cache[h].kind == kind && cache[h].name)
		return cache[h].name;
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
	cache[h].code = code;
	cache[h].kind = kind;
	cache[h].name = e->name;
	return e->name;
}

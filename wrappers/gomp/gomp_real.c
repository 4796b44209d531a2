/*
 * gomp_real.c - where the interposed GOMP_* calls go, and whether they are
 * measured.
 *
 * The preload library comes first in the global symbol lookup, so the
 * program's GOMP_* references (versioned, GOMP_parallel@GOMP_4.0) bind to
 * its unversioned definitions.  The real entry point is the next
 * definition (RTLD_NEXT): libgomp, or a library preloaded after Tally
 * (LLVM's libomp when TALLY_LIBOMP asks for it: then these wrappers only
 * forward and the OMPT tool measures).  A libgomp loaded into a local scope
 * (a Python extension's DT_NEEDED, dlopen RTLD_LOCAL) is not in RTLD_NEXT's
 * view: it is found among the loaded objects by name.
 */
#include "gomp/gomp.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "regions/regions.h"

static struct {
	pthread_once_t once;
	int measure;          /* GOMP calls reach GNU libgomp and are measured */
	pthread_key_t end;    /* thread end of the OpenMP threads this file made */
	int have_key;
	char gomp[512];       /* a libgomp of the process, for local lookups */
} gomp_state = { .once = PTHREAD_ONCE_INIT };

static int find_gomp(struct dl_phdr_info *info, size_t size, void *arg)
{
	const char *base = strrchr(info->dlpi_name, '/');

	(void)size; (void)arg;
	base = base ? base + 1 : info->dlpi_name;
	if (!strncmp(base, "libgomp", 7) && !gomp_state.gomp[0])
		snprintf(gomp_state.gomp, sizeof gomp_state.gomp, "%s", info->dlpi_name);
	return 0;
}

void *tly_gomp_real(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name), *h;
	char msg[256];

	if (f)
		return f;
	dl_iterate_phdr(find_gomp, NULL);
	h = gomp_state.gomp[0] ? dlopen(gomp_state.gomp, RTLD_LAZY | RTLD_NOLOAD) : NULL;
	f = h ? dlsym(h, name) : NULL;
	if (h)
		dlclose(h);     /* still loaded: the program's own reference holds it */
	if (f)
		return f;
	snprintf(msg, sizeof msg, "tally: %s called but no OpenMP runtime defines it\n", name);
	ssize_t r = write(2, msg, strlen(msg));

	(void)r;
	abort();
}

/* Thread end of an OpenMP thread (pthread key destructor): fold its record. */
static void thread_end(void *p)
{
	struct tly_rt_thread *t = p;

	if (t && t->kind == TLY_RT_THREAD_OPENMP)
		tly_rt_thread_stop(t);
}

static void decide(void)
{
	Dl_info di;
	void *par = tly_gomp_real("GOMP_parallel"), *h = NULL;

	gomp_state.measure = tly_rt_enabled() && tly_rt_proc()->opt.ompt;
	/* LLVM's libomp below (TALLY_LIBOMP): its OMPT tool measures */
	if (dladdr(par, &di) && di.dli_fname)
		h = dlopen(di.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
	if (h && dlsym(h, "__kmpc_fork_call"))
		gomp_state.measure = 0;
	if (h)
		dlclose(h);
	gomp_state.have_key = gomp_state.measure && !pthread_key_create(&gomp_state.end, thread_end);
	tly_rt_log(2, "GCC OpenMP: GOMP_* calls go to %s, %s", di.dli_fname ? di.dli_fname : "?",
		   gomp_state.measure ? "measured inside libgomp" : "not measured by these wrappers");
}

struct tly_rt_thread *tly_gomp_thread(void)
{
	struct tly_rt_thread *t = tly_rt_self_tls;

	pthread_once(&gomp_state.once, decide);
	if (!gomp_state.measure || !tly_rt_proc()->active)
		return NULL;
	if (t)
		return t;
	t = tly_rt_self_kind(TLY_RT_THREAD_OPENMP);   /* a new OpenMP thread: its record, its counters */
	if (t && t->kind == TLY_RT_THREAD_OPENMP && gomp_state.have_key)
		pthread_setspecific(gomp_state.end, t);
	return t;
}

int tly_gomp_counters(void)
{
	return tly_rt_proc()->opt.omp_counters;
}

_Thread_local int tly_gomp_in_team __attribute__((tls_model("initial-exec")));
_Thread_local int tly_gomp_team_size __attribute__((tls_model("initial-exec")));

/* libgomp's omp_get_num_threads: the calling thread's team, inside it */
int tly_gomp_num_threads(void)
{
	static tly_gomp_slot next;

	return GOMP_NEXT(int (*)(void), next, "omp_get_num_threads")();
}

int tly_gomp_waits(struct tly_rt_thread *t)
{
	if (tly_gomp_team_size > 1)
		return 1;
	t->waits_skipped++;
	return 0;
}

void tly_gomp_enter(struct tly_rt_thread *t, struct tly_gomp_mark *m, const char *name, int kind)
{
	m->depth = t->depth;
	m->truncated = t->truncated_depth;
	tly_rt_enter(t, name, kind, tly_gomp_counters());
}

void tly_gomp_leave(struct tly_rt_thread *t, const struct tly_gomp_mark *m)
{
	if (t->stopped)
		return;
	if (t->truncated_depth > m->truncated) {   /* the enter went past TALLY_MAX_DEPTH */
		tly_rt_exit(t);
		return;
	}
	while (t->depth > m->depth && tly_rt_exit(t) == 0)
		;
}

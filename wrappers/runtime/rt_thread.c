/*
 * rt_thread.c - the calling thread's record: created on first use (or at
 * OMPT thread_begin), with its own event set started in the runtime's
 * private core instance.  Records stay on the process list until exit so
 * the writer sees threads that have ended; at the end tly_rt_stop_all
 * freezes them all.  The first use from a thread (tly_rt_self_slow) starts
 * the runtime, so it lives with the start-up (rt_state.c).
 */
#include "runtime/rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "papi.h"
#include "runtime/rt_parts.h"

/* the calling thread's record (rt.h: why initial-exec) */
_Thread_local struct tly_rt_thread *tly_rt_self_tls __attribute__((tls_model("initial-exec")));

static void start_counters(struct tly_rt_thread *t, struct tly_rt_proc *p)
{
	int es = PAPI_NULL;

	t->evset = -1;
	if (!p->nev || PAPI_create_eventset(&es) != PAPI_OK)
		return;
	for (int i = 0; i < p->nev; i++)
		if (PAPI_add_event(es, p->codes[i]) != PAPI_OK)
			goto fail;
	if (PAPI_start(es) != PAPI_OK)
		goto fail;
	t->evset = es;
	t->nev = p->nev;
	return;
fail:
	tly_rt_log(1, "thread %ld: counters could not be started (%s); this thread records time only",
		   t->ktid, PAPI_strerror(PAPI_EMISC));
	PAPI_cleanup_eventset(es);
	PAPI_destroy_eventset(&es);
}

/* A thread of the program's own (not the main thread, not OpenMP's, whose
 * ends gomp/ and ompt/ see) is stopped at its end, on itself, by a key
 * destructor: its counters are read while it lives (the thread
 * component's, docs/runtime.md "Default events", cannot be read after it
 * has gone; perf's would still be) and its root ends when it does. */
static struct {
	pthread_once_t once;
	pthread_key_t key;
	int ok;
} other_end = { .once = PTHREAD_ONCE_INIT };

static void other_thread_end(void *arg)
{
	struct tly_rt_thread *t = arg;
	struct tly_rt_proc *p = tly_rt_proc();

	pthread_mutex_lock(&p->lock);   /* as tly_rt_stop_all: the parts' thread_stop are idempotent */
	tly_rt_parts_thread_stop(t);
	pthread_mutex_unlock(&p->lock);
}

static void other_end_key(void)
{
	other_end.ok = pthread_key_create(&other_end.key, other_thread_end) == 0;
}

static struct tly_rt_thread *create(struct tly_rt_proc *p, enum tly_rt_thread_kind kind)
{
	struct tly_rt_thread *t = calloc(1, sizeof *t);

	if (!t)
		return NULL;
	t->kind = kind;
	t->ktid = (long)syscall(SYS_gettid);
	t->stack = calloc((size_t)p->opt.max_depth + 2, sizeof *t->stack);
	if (!t->stack) {
		free(t);
		return NULL;
	}
	start_counters(t, p);
	/* each part's slot (the MPI statistics), the region tree's root */
	if (tly_rt_parts_thread_start(t) != 0) {
		if (t->evset >= 0) {
			PAPI_stop(t->evset, NULL);
			PAPI_cleanup_eventset(t->evset);
			PAPI_destroy_eventset(&t->evset);
		}
		free(t->stack);
		tly_rt_parts_thread_free(t);
		free(t);
		return NULL;
	}
	pthread_mutex_lock(&p->lock);
	t->index = p->nthreads++;
	t->next = p->threads;
	p->threads = t;
	__atomic_store_n(&t->listed, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&p->lock);
	if (kind == TLY_RT_THREAD_OTHER) {
		pthread_once(&other_end.once, other_end_key);
		if (other_end.ok)
			pthread_setspecific(other_end.key, t);
	}
	return t;
}

struct tly_rt_thread *tly_rt_thread_new_self(enum tly_rt_thread_kind kind)
{
	if (!tly_rt_self_tls)
		tly_rt_self_tls = create(tly_rt_proc(), kind);
	return tly_rt_self_tls;
}

void tly_rt_node_path(const struct tly_rt_thread *t, int32_t n, char *buf, size_t len)
{
	int32_t chain[256];
	int k = 0;
	size_t at = 0;

	for (int32_t c = n; c >= 0 && k < 256; c = t->nodes[c].parent)
		chain[k++] = c;
	buf[0] = '\0';
	for (int i = k - 1; i >= 0 && at < len; i--) {
		int w = snprintf(buf + at, len - at, "%s%s", i == k - 1 ? "" : "\x1f", t->nodes[chain[i]].name);

		if (w < 0)
			break;
		at += (size_t)w;
	}
}

void tly_rt_node_path_shown(const struct tly_rt_thread *t, int32_t node, char *buf, size_t len)
{
	char raw[2048];
	size_t at = 0;

	tly_rt_node_path(t, node, raw, sizeof raw);
	buf[0] = '\0';
	for (const char *s = raw; *s && at + 4 < len; s++) {
		if (*s == TLY_RT_ADDR_SEP) {   /* a name's raw address: not in paths */
			s += strcspn(s, "\x1f") - 1;
		} else if (*s == '\x1f') {
			at += (size_t)snprintf(buf + at, len - at, " / ");
		} else {
			buf[at++] = *s;
			buf[at] = '\0';
		}
	}
}

int64_t tly_rt_thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t tly_rt_process_cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL
	       + ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL;
}

void tly_rt_stop_all(void)
{
	struct tly_rt_proc *proc = tly_rt_proc();

	pthread_mutex_lock(&proc->lock);
	if (!proc->exit_t0) {
		proc->exit_t0 = tly_rt_now();   /* the end's cost starts here */
		proc->exit_cpu0 = tly_rt_thread_cpu_ns();
	}
	if (!proc->end_ns) {
		proc->end_ns = tly_rt_now();
		proc->end_wall = (int64_t)time(NULL);
		proc->cpu_ns = tly_rt_process_cpu_ns();
	}
	for (struct tly_rt_thread *t = proc->threads; t; t = t->next)
		tly_rt_parts_thread_stop(t);
	pthread_mutex_unlock(&proc->lock);
}

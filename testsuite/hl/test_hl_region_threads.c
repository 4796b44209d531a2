/*
 * test_hl_region_threads.c - 8 threads, each with its own regions and a
 * shared region name; the summary written at PAPI_hl_stop (after the
 * threads exited) must hold each thread's own values: page faults within
 * 2% of the pages that thread touched, perf::TASK-CLOCK between the
 * thread's CPU time inside the region and its CPU time around the region
 * calls plus its own extra time there (TH_CLOCK_IN): 8 threads on 2 cores
 * wait in the run queue, and a thread's first region call sets up its
 * counters, which the region does not count.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* mmap/madvise flags, mkdtemp, setenv, gethostname */
#endif
#include <pthread.h>

#include "papi.h"
#include "tharness.h"
#include "th_file.h"
#include "hl_test_util.h"
#include "th_sys.h"

#define NTHREADS 8
#define PAGES_UNIT 600
#define COMMON_VISITS 3
#define SPIN_NS 20000000LL

struct worker {
	int idx;
	int rc;            /* first failing call's code */
	long long cpu_in;  /* CPU time inside "thr<idx>" (counted for sure) */
	long long cpu_out; /* CPU time around its begin and end calls */
	long long extra;   /* the thread's extra time around them */
	long long f_thr, f_common; /* the kernel's page faults of the thread around the regions */
};

static void note(struct worker *w, int rc)
{
	if (rc != PAPI_OK && w->rc == PAPI_OK)
		w->rc = rc;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	char name[32];
	struct th_clock out;
	long long in, f0;

	snprintf(name, sizeof name, "thr%d", w->idx);
	f0 = th_thread_faults();
	out = th_clock_now();
	note(w, PAPI_hl_region_begin(name));
	in = th_thread_cpu_ns();
	hlt_touch_pages((long)(w->idx + 1) * PAGES_UNIT);
	th_spin_cpu_ns(SPIN_NS);
	w->cpu_in = th_thread_cpu_ns() - in;
	note(w, PAPI_hl_region_end(name));
	w->extra = th_clock_extra_ns(&out);
	w->cpu_out = th_thread_cpu_ns() - out.cpu;
	w->f_thr = th_thread_faults() - f0;
	for (int i = 0; i < COMMON_VISITS; i++) {
		f0 = th_thread_faults();
		note(w, PAPI_hl_region_begin("common"));
		hlt_touch_pages(PAGES_UNIT / 3);
		note(w, PAPI_hl_region_end("common"));
		w->f_common += th_thread_faults() - f0;
	}
	return NULL;
}

/* The thread entry holding region `name`: [*start, *end). */
static int thread_chunk(const char *doc, const char *name, const char **start, const char **end)
{
	const char *r = hlt_region(doc, NULL, name);
	const char *t = NULL;

	if (!r)
		return 0;
	for (const char *p = doc; (p = strstr(p, "{\"tid\": ")) && p < r; p++)
		t = p;
	*start = t;
	*end = strstr(r, "{\"tid\": ");
	if (!*end)
		*end = r + strlen(r);
	return t != NULL;
}

static void check_thread(const char *doc, const struct worker *w)
{
	char name[32];
	const char *s, *e, *r;
	int ok = 1;

	snprintf(name, sizeof name, "thr%d", w->idx);
	th_at(w->idx); /* failures name the thread index */
	TH_EQ(w->rc, PAPI_OK);
	TH_CHECK(thread_chunk(doc, name, &s, &e));
	if (!thread_chunk(doc, name, &s, &e))
		return;
	r = hlt_region(s, e, name);
	TH_EQ(hlt_field(r, "visits", &ok), 1);
	TH_FAULTS_IN(hlt_event(r, "perf::PAGE-FAULTS", &ok), (w->idx + 1) * PAGES_UNIT, w->f_thr);
	TH_CLOCK_IN(hlt_event(r, "perf::TASK-CLOCK", &ok), w->cpu_in, w->cpu_out, w->extra);
	r = hlt_region(s, e, "common");
	TH_CHECK(r != NULL);
	if (r) {
		TH_EQ(hlt_field(r, "visits", &ok), COMMON_VISITS);
		TH_FAULTS_IN(hlt_event(r, "perf::PAGE-FAULTS", &ok), COMMON_VISITS * (PAGES_UNIT / 3), w->f_common);
	}
	for (int j = 0; j < NTHREADS; j++) { /* no other thread's region here */
		char other[32];

		snprintf(other, sizeof other, "thr%d", j);
		if (j != w->idx)
			TH_CHECK(hlt_region(s, e, other) == NULL);
	}
	TH_CHECK(ok);
	th_at(0);
}

static char dir[] = "/tmp/tally_hl_thr_XXXXXX";

/* Registered before the library's exit hook, so it runs after it: the
 * summary rewritten at exit is removed too. */
static void remove_dir(void)
{
	if (th_failures == 0)
		th_rm_tree(dir);
	else
		printf("files kept in %s\n", dir);
}

int main(void)
{
	char path[512], host[256];
	struct worker w[NTHREADS];
	pthread_t th[NTHREADS];
	char *doc;

	if (!mkdtemp(dir))
		TH_FATAL("cannot create a temporary directory");
	atexit(remove_dir);
	setenv("TALLY_OUTPUT_DIR", dir, 1);
	setenv("PAPI_EVENTS", "perf::TASK-CLOCK,perf::PAGE-FAULTS", 1);
	TH_EQ(PAPI_hl_region_begin("main"), PAPI_OK);
	for (int i = 0; i < NTHREADS; i++) {
		w[i] = (struct worker){ .idx = i };
		TH_EQ(pthread_create(&th[i], NULL, work, &w[i]), 0);
	}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	TH_EQ(PAPI_hl_region_end("main"), PAPI_OK);
	TH_EQ(PAPI_hl_stop(), PAPI_OK);
	gethostname(host, sizeof host);
	host[sizeof host - 1] = '\0';
	snprintf(path, sizeof path, "%s/tally_hl_%s_%ld.json", dir, host, (long)getpid());
	doc = hlt_slurp(path);
	TH_CHECK(doc != NULL);
	if (doc) {
		TH_EQ(hlt_count(doc, "{\"tid\": "), NTHREADS + 1);
		TH_EQ(hlt_count(doc, "{\"name\": \"common\""), NTHREADS);
		for (int i = 0; i < NTHREADS; i++)
			check_thread(doc, &w[i]);
	}
	free(doc);
	return th_done();
}

/*
 * test_hl_region.c - PAPI 7 region API: values in the written summary
 * against ground truth (touched pages, CLOCK_THREAD_CPUTIME_ID,
 * CLOCK_MONOTONIC), nesting, error codes, event list from the environment
 * (bad entries warned once, the rest counted), defaults, quiet mode, and
 * the stderr fallback for an unwritable output directory.
 *
 * Each scenario runs in a child process: the event list is settled once
 * per process and the summary is written at its exit.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* mmap/madvise flags, mkdtemp, setenv, gethostname */
#endif
#include <glob.h>

#include "papi.h"
#include "tally.h"
#include "tharness.h"
#include "th_file.h"
#include "hl_test_util.h"
#include "th_sys.h"

#define NPAGES 1500
#define SPIN_NS 50000000LL
#define BAD_EVENT "perf::NO-SUCH-EVENT-HL"

static char dir[64];

static void summary_path(char *buf, size_t len, pid_t pid)
{
	char host[256];

	gethostname(host, sizeof host);
	host[sizeof host - 1] = '\0';
	snprintf(buf, len, "%s/tally_hl_%s_%ld.json", dir, host, (long)pid);
}

static void set_env(const char *events, const char *out, int quiet)
{
	unsetenv("TALLY_EVENTS");
	unsetenv("PAPI_EVENTS");
	unsetenv("TALLY_QUIET");
	unsetenv("PAPI_NO_WARNING");
	if (events)
		setenv("PAPI_EVENTS", events, 1);
	setenv("TALLY_OUTPUT_DIR", out, 1);
	if (quiet)
		setenv("TALLY_QUIET", "1", 1);
}

/* Error codes before anything ran, and for bad names. */
static void error_table(void)
{
	static const struct row {
		int line, call; /* 0 begin, 1 read, 2 end, 3 stop */
		const char *name;
		int expect;
	} rows[] = {
		{ __LINE__, 2, "x", PAPI_ENOTRUN },  /* nothing begun yet */
		{ __LINE__, 1, "x", PAPI_ENOTRUN },
		{ __LINE__, 3, NULL, PAPI_ENOEVNT },
		{ __LINE__, 0, NULL, PAPI_EINVAL },
		{ __LINE__, 0, "", PAPI_EINVAL },
		{ __LINE__, 1, NULL, PAPI_EINVAL },
		{ __LINE__, 2, "", PAPI_EINVAL },
	};

	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const struct row *r = &rows[i];
		int rc;

		th_at(r->line);
		switch (r->call) {
		case 0: rc = PAPI_hl_region_begin(r->name); break;
		case 1: rc = PAPI_hl_read(r->name); break;
		case 2: rc = PAPI_hl_region_end(r->name); break;
		default: rc = PAPI_hl_stop(); break;
		}
		TH_EQ(rc, r->expect);
	}
	th_at(0);
}

/* CPU time inside the regions (counted for sure) and around their begin
 * and end calls, the thread's extra time there, and wall time; the page
 * faults the kernel booked to the thread around each region (and around
 * inner's begin..read). */
struct truth {
	long long cpu_in, cpu_out, extra, real, real_in;
	long long f_touch, f_outer, f_inner, f_inner_read;
};

/* A region whose summary the parent reads: the child says the kernel's
 * fault count around it on stderr (its log), the parent takes it from
 * there (-1 when missing: the check then fails). */
static void say_faults(const char *region, long long n)
{
	fprintf(stderr, "kernel-faults %s %lld\n", region, n);
}

static long long said_faults(const char *log, const char *region)
{
	char key[64];
	const char *p;
	long long n;

	snprintf(key, sizeof key, "kernel-faults %s ", region);
	p = strstr(log, key);
	return p && sscanf(p + strlen(key), "%lld", &n) == 1 ? n : -1;
}

TH_UNINSTRUMENTED static void touch_region(struct truth *t)
{
	struct th_clock out = th_clock_now();
	long long in, f0 = th_thread_faults();

	TH_EQ(PAPI_hl_region_begin("touch"), PAPI_OK);
	long long wall_in = (long long)th_now_ns();

	in = th_thread_cpu_ns();
	hlt_touch_pages(NPAGES);
	th_spin_cpu_ns(SPIN_NS);
	t->cpu_in += th_thread_cpu_ns() - in;
	t->real_in += (long long)th_now_ns() - wall_in;
	TH_EQ(PAPI_hl_region_end("touch"), PAPI_OK);
	t->extra += th_clock_extra_ns(&out);
	t->cpu_out += th_thread_cpu_ns() - out.cpu;
	t->real += (long long)th_now_ns() - out.wall;
	t->f_touch += th_thread_faults() - f0;
}

static void nested_regions(struct truth *t)
{
	long long fo = th_thread_faults(), fi;

	TH_EQ(PAPI_hl_region_begin("outer"), PAPI_OK);
	hlt_touch_pages(NPAGES / 2);
	fi = th_thread_faults();
	TH_EQ(PAPI_hl_region_begin("inner"), PAPI_OK);
	hlt_touch_pages(NPAGES / 3);
	TH_EQ(PAPI_hl_read("inner"), PAPI_OK);
	t->f_inner_read = th_thread_faults() - fi;
	TH_EQ(PAPI_hl_read("outer"), PAPI_OK);
	hlt_touch_pages(NPAGES / 3);
	TH_EQ(PAPI_hl_region_end("inner"), PAPI_OK);
	t->f_inner = th_thread_faults() - fi;
	TH_EQ(PAPI_hl_region_end("inner"), PAPI_EINVAL); /* no longer open */
	TH_EQ(PAPI_hl_read("inner"), PAPI_EINVAL);
	TH_EQ(PAPI_hl_region_end("never"), PAPI_EINVAL);
	TH_EQ(PAPI_hl_region_end("outer"), PAPI_OK);
	t->f_outer = th_thread_faults() - fo;
	/* overlapping, not nested: allowed */
	TH_EQ(PAPI_hl_region_begin("a"), PAPI_OK);
	TH_EQ(PAPI_hl_region_begin("b"), PAPI_OK);
	TH_EQ(PAPI_hl_region_end("a"), PAPI_OK);
	TH_EQ(PAPI_hl_region_end("b"), PAPI_OK);
}

static void check_summary(const char *doc, const struct truth *t)
{
	const char *r;
	int ok = 1;

	TH_CHECK(strstr(doc, "\"events\": [\"perf::TASK-CLOCK\", \"perf::PAGE-FAULTS\"]"));
	TH_EQ(hlt_count(doc, BAD_EVENT), 0);
	TH_CHECK((r = hlt_region(doc, NULL, "touch")) != NULL);
	if (!r)
		return;
	TH_EQ(hlt_field(r, "visits", &ok), 2);
	TH_FAULTS_IN(hlt_event(r, "perf::PAGE-FAULTS", &ok), 2 * NPAGES, t->f_touch);
	TH_CLOCK_IN(hlt_event(r, "perf::TASK-CLOCK", &ok), t->cpu_in, t->cpu_out, t->extra);
	/* wall time: at least what passed inside the region, at most what
	 * passed around it (preemption on a busy machine lands on either side) */
	long long real = hlt_field(r, "real_time_nsec", &ok);

	if (real < t->real_in || real > t->real)
		fprintf(stderr, "touch: real_time_nsec %lld not in [%lld, %lld] (inside, around)\n", real, t->real_in,
			t->real);
	TH_CHECK(real >= t->real_in && real <= t->real);
	TH_CHECK((r = hlt_region(doc, NULL, "outer")) != NULL);
	if (r) {
		TH_EQ(hlt_field(r, "visits", &ok), 1);
		TH_FAULTS_IN(hlt_event(r, "perf::PAGE-FAULTS", &ok), NPAGES / 2 + 2 * (NPAGES / 3), t->f_outer);
		TH_EQ(hlt_field(r, "reads", &ok), 1);
	}
	TH_CHECK((r = hlt_region(doc, NULL, "inner")) != NULL);
	if (r) {
		TH_FAULTS_IN(hlt_event(r, "perf::PAGE-FAULTS", &ok), 2 * (NPAGES / 3), t->f_inner);
		TH_EQ(hlt_field(r, "reads", &ok), 1);
		/* the read came after the first third: last_read holds that much */
		r = strstr(r, "\"last_read\"");
		TH_CHECK(r != NULL);
		if (r)
			TH_FAULTS_IN(hlt_event(r, "perf::PAGE-FAULTS", &ok), NPAGES / 3, t->f_inner_read);
	}
	TH_CHECK((r = hlt_region(doc, NULL, "b")) && hlt_field(r, "visits", &ok) == 1);
	TH_CHECK(ok);
}

/* Scenario 1: env events with a bad entry; values; errors; stop. */
static int child_basic(void)
{
	struct truth t = { 0 };
	long long f0;
	char path[512];
	char *doc;
	int pf;

	set_env("perf::TASK-CLOCK, " BAD_EVENT ",perf::PAGE-FAULTS", dir, 0);
	error_table();
	/* warm-up: library and event set start-up stay out of the truth */
	TH_EQ(PAPI_hl_region_begin("warm"), PAPI_OK);
	TH_EQ(PAPI_hl_region_end("warm"), PAPI_OK);
	touch_region(&t);
	/* one running set per component and thread: the region set runs */
	TH_EQ(PAPI_event_name_to_code("perf::PAGE-FAULTS", &pf), PAPI_OK);
	TH_EQ(PAPI_start_counters(&pf, 1), PAPI_EISRUN);
	nested_regions(&t);
	touch_region(&t);
	TH_EQ(PAPI_hl_region_begin("dangling"), PAPI_OK);
	TH_EQ(PAPI_hl_stop(), PAPI_OK); /* writes the summary now */
	TH_EQ(PAPI_hl_stop(), PAPI_ENOEVNT);
	TH_EQ(PAPI_hl_region_end("dangling"), PAPI_ENOTRUN);
	summary_path(path, sizeof path, getpid());
	doc = hlt_slurp(path);
	TH_CHECK(doc != NULL);
	if (doc)
		check_summary(doc, &t);
	free(doc);
	/* counting resumes after PAPI_hl_stop; the exit summary has it all */
	f0 = th_thread_faults();
	TH_EQ(PAPI_hl_region_begin("after"), PAPI_OK);
	hlt_touch_pages(NPAGES / 5);
	TH_EQ(PAPI_hl_region_end("after"), PAPI_OK);
	say_faults("after", th_thread_faults() - f0);
	return th_done();
}

static void scenario_basic(void)
{
	char err[128], path[512];
	char *log, *doc;
	int ok = 1;
	const char *r;
	long long f_after = -1;

	snprintf(err, sizeof err, "%s/basic.err", dir);
	TH_EQ(hlt_run_child(child_basic, err), 0);
	log = hlt_slurp(err);
	TH_CHECK(log != NULL);
	if (log) {
		TH_EQ(hlt_count(log, BAD_EVENT), 1); /* reported once */
		TH_EQ(hlt_count(log, "dangling"), 1);
		/* where the summary went: once, though written twice */
		TH_EQ(hlt_count(log, "region summary (PAPI_hl_*/tally_region_*) written to"), 1);
		f_after = said_faults(log, "after");
		fputs(log, stdout);
	}
	free(log);
	/* the exit summary of the child (pid unknown here: find it by scan) */
	doc = NULL;
	{
		glob_t g;

		snprintf(path, sizeof path, "%s/tally_hl_*.json", dir);
		TH_EQ(glob(path, 0, NULL, &g), 0);
		TH_EQ(g.gl_pathc, 1);
		doc = g.gl_pathc == 1 ? hlt_slurp(g.gl_pathv[0]) : NULL;
		globfree(&g);
	}
	TH_CHECK(doc && (r = hlt_region(doc, NULL, "after")) != NULL);
	if (doc && (r = hlt_region(doc, NULL, "after"))) {
		TH_EQ(hlt_field(r, "visits", &ok), 1);
		TH_FAULTS_IN(hlt_event(r, "perf::PAGE-FAULTS", &ok), NPAGES / 5, f_after);
		r = hlt_region(doc, NULL, "touch");
		TH_CHECK(r && hlt_field(r, "visits", &ok) == 2);
		TH_CHECK(ok);
	}
	free(doc);
}

/* Scenario 2: unwritable directory -> message once, JSON on stderr. */
static int child_unwritable(void)
{
	long long f0;

	set_env("perf::PAGE-FAULTS", "/dev/null/not-a-dir", 0);
	f0 = th_thread_faults();
	TH_EQ(PAPI_hl_region_begin("kept"), PAPI_OK);
	hlt_touch_pages(NPAGES);
	TH_EQ(PAPI_hl_region_end("kept"), PAPI_OK);
	say_faults("kept", th_thread_faults() - f0);
	return th_done(); /* the summary is written at exit */
}

static void scenario_unwritable(void)
{
	char err[128];
	char *log;
	const char *r;
	int ok = 1;

	snprintf(err, sizeof err, "%s/unwritable.err", dir);
	TH_EQ(hlt_run_child(child_unwritable, err), 0);
	log = hlt_slurp(err);
	TH_CHECK(log != NULL);
	if (!log)
		return;
	TH_EQ(hlt_count(log, "cannot write the region summary to '/dev/null/not-a-dir/"), 1);
	TH_CHECK((r = hlt_region(log, NULL, "kept")) != NULL);
	if (r) {
		TH_EQ(hlt_field(r, "visits", &ok), 1);
		TH_FAULTS_IN(hlt_event(r, "perf::PAGE-FAULTS", &ok), NPAGES, said_faults(log, "kept"));
		TH_CHECK(ok);
	}
	free(log);
}

/* Scenario 3: quiet, bad entry only warned when not quiet; defaults. */
static int child_quiet(void)
{
	set_env(BAD_EVENT ",perf::PAGE-FAULTS", dir, 1);
	TH_EQ(PAPI_hl_region_begin("q"), PAPI_OK);
	TH_EQ(PAPI_hl_region_end("q"), PAPI_OK);
	TH_EQ(PAPI_hl_stop(), PAPI_OK);
	return th_done();
}

static int child_defaults(void)
{
	static const int presets[] = { PAPI_TOT_CYC, PAPI_TOT_INS, PAPI_FP_OPS };
	char path[512];
	char *doc;
	int any = 0;
	long long f0;

	set_env(NULL, dir, 0);
	f0 = th_thread_faults();
	TH_EQ(PAPI_hl_region_begin("d"), PAPI_OK);
	hlt_touch_pages(NPAGES);
	TH_EQ(PAPI_hl_region_end("d"), PAPI_OK);
	f0 = th_thread_faults() - f0;
	TH_EQ(PAPI_hl_stop(), PAPI_OK);
	for (int i = 0; i < 3; i++)
		any |= PAPI_query_event(presets[i]) == PAPI_OK;
	summary_path(path, sizeof path, getpid());
	doc = hlt_slurp(path);
	TH_CHECK(doc != NULL);
	if (doc && !any) {
		int ok = 1;
		const char *r = hlt_region(doc, NULL, "d");

		TH_CHECK(strstr(doc, "\"events\": [\"perf::TASK-CLOCK\", \"perf::PAGE-FAULTS\", "
				     "\"perf::CONTEXT-SWITCHES\"]"));
		TH_CHECK(r != NULL);
		if (r)
			TH_FAULTS_IN(hlt_event(r, "perf::PAGE-FAULTS", &ok), NPAGES, f0);
		TH_CHECK(ok);
	}
	free(doc);
	return th_done();
}

static void scenario_quiet_defaults(void)
{
	char err[128];
	char *log;

	snprintf(err, sizeof err, "%s/quiet.err", dir);
	TH_EQ(hlt_run_child(child_quiet, err), 0);
	log = hlt_slurp(err);
	TH_CHECK(log && hlt_count(log, BAD_EVENT) == 0);
	TH_CHECK(log && hlt_count(log, "written to") == 0);
	free(log);
	snprintf(err, sizeof err, "%s/defaults.err", dir);
	TH_EQ(hlt_run_child(child_defaults, err), 0);
	log = hlt_slurp(err);
	if (log)
		fputs(log, stdout);
	free(log);
}

/* Scenario 4: the program's own event set runs on the component: each
 * begin returns PAPI_EISRUN, said once; after PAPI_stop regions count. */
static int child_eisrun(void)
{
	int es = PAPI_NULL;
	long long v[1];

	set_env("perf::PAGE-FAULTS", dir, 0);
	TH_EQ(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	TH_EQ(PAPI_add_named_event(es, "perf::PAGE-FAULTS"), PAPI_OK);
	TH_EQ(PAPI_start(es), PAPI_OK);
	TH_EQ(tally_region_begin("own"), PAPI_EISRUN);
	TH_EQ(PAPI_hl_region_begin("own"), PAPI_EISRUN);
	TH_EQ(PAPI_stop(es, v), PAPI_OK);
	TH_EQ(tally_region_begin("later"), PAPI_OK);
	TH_EQ(tally_region_end("later"), PAPI_OK);
	return th_done();
}

static void scenario_eisrun(void)
{
	char err[128];
	char *log;

	snprintf(err, sizeof err, "%s/eisrun.err", dir);
	TH_EQ(hlt_run_child(child_eisrun, err), 0);
	log = hlt_slurp(err);
	TH_CHECK(log != NULL);
	if (log) {
		TH_EQ(hlt_count(log, "region 'own' not recorded: the thread's own event set is running"), 1);
		TH_EQ(hlt_count(log, "PAPI_EISRUN"), 2);   /* the one line names it twice */
		fputs(log, stdout);
	}
	free(log);
}

int main(void)
{
	snprintf(dir, sizeof dir, "/tmp/tally_hl_test_XXXXXX");
	if (!mkdtemp(dir))
		TH_FATAL("cannot create a temporary directory");
	scenario_basic();
	scenario_unwritable();
	scenario_quiet_defaults();
	scenario_eisrun();
	if (th_failures == 0)
		th_rm_tree(dir);
	else
		printf("files kept in %s\n", dir);
	return th_done();
}

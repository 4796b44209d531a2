/*
 * bench_perf_read.c - cost of PAPI calls on a perf_event set against the
 * floor: the same system calls issued directly on the same perf fds.
 *
 * Set: perf::TASK-CLOCK, perf::PAGE-FAULTS, perf::CONTEXT-SWITCHES.  Each
 * measurement is the median over batches of the mean time per call in a
 * batch (clock_gettime around BATCH calls); PAPI and floor batches
 * alternate so drift hits both.  Targets: PAPI_read <= 1.15x, start+stop
 * <= 1.25x.  A benchmark, not a test: exit 0 unless a call fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "papi.h"
#include "core/eventset.h"
#include "components/perf_event/pe_internal.h"
#include "th_clock.h"

#define BATCH 100
#define NBATCH 200   /* 20000 calls per measurement */
#define NEV 3
#define MAXG 8

struct floor_fds {
	int n;
	int fd[MAXG];
	size_t bytes[MAXG];
};

static int evset;
static struct floor_fds fl;
static long long vals[NEV];
static uint64_t raw[64];
static int failed;

static void check(int rc, const char *what)
{
	if (rc != PAPI_OK && !failed) {
		fprintf(stderr, "%s failed: %s\n", what, PAPI_strerror(rc));
		failed = 1;
	}
}

static void papi_read(void) { check(PAPI_read(evset, vals), "PAPI_read"); }
static void papi_accum(void) { check(PAPI_accum(evset, vals), "PAPI_accum"); }
static void papi_reset(void) { check(PAPI_reset(evset), "PAPI_reset"); }
static void papi_start_stop(void)
{
	check(PAPI_start(evset), "PAPI_start");
	check(PAPI_stop(evset, vals), "PAPI_stop");
}

static void sys_read(void)
{
	for (int g = 0; g < fl.n; g++)
		if (read(fl.fd[g], raw, fl.bytes[g]) != (ssize_t)fl.bytes[g])
			failed = 1;
}

static void sys_read1(void)
{
	if (read(fl.fd[0], raw, fl.bytes[0]) != (ssize_t)fl.bytes[0])
		failed = 1;
}

static void sys_ioctl(unsigned long req, unsigned long arg)
{
	for (int g = 0; g < fl.n; g++)
		if (ioctl(fl.fd[g], req, arg) < 0)
			failed = 1;
}

static void sys_reset(void) { sys_ioctl(PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP); }
static void sys_accum(void)
{
	sys_read();
	sys_reset();
}
/* what PAPI_start + PAPI_stop must do: reset, enable, disable, read */
static void sys_start_stop(void)
{
	sys_reset();
	sys_ioctl(PERF_EVENT_IOC_ENABLE, 0);
	sys_ioctl(PERF_EVENT_IOC_DISABLE, 0);
	sys_read();
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double batch(void (*fn)(void))
{
	double t0 = th_now_ns();

	for (int i = 0; i < BATCH; i++)
		fn();
	return (th_now_ns() - t0) / BATCH;
}

/* Medians of alternating batches of `a` (PAPI) and `b` (floor). */
static void measure(const char *label, void (*a)(void), void (*b)(void), double target)
{
	static double ta[NBATCH], tb[NBATCH];

	for (int i = 0; i < 10; i++) {
		a();
		b();
	}
	for (int i = 0; i < NBATCH; i++) {
		ta[i] = batch(a);
		tb[i] = batch(b);
	}
	qsort(ta, NBATCH, sizeof ta[0], cmp);
	qsort(tb, NBATCH, sizeof tb[0], cmp);
	double ma = ta[NBATCH / 2], mb = tb[NBATCH / 2];
	printf("%-26s %10.1f %10.1f %8.3f", label, ma, mb, ma / mb);
	if (target > 0)
		printf("   (target <= %.2f: %s)", target, ma / mb <= target ? "met" : "NOT met");
	printf("\n");
}

static int setup(void)
{
	const char *names[NEV] = { "perf::TASK-CLOCK", "perf::PAGE-FAULTS", "perf::CONTEXT-SWITCHES" };
	struct tly_evset *es;
	int rc;

	if ((rc = PAPI_library_init(PAPI_VER_CURRENT)) != PAPI_VER_CURRENT) {
		fprintf(stderr, "PAPI_library_init: %d\n", rc);
		return 1;
	}
	evset = PAPI_NULL;
	check(PAPI_create_eventset(&evset), "PAPI_create_eventset");
	for (int i = 0; i < NEV; i++)
		check(PAPI_add_named_event(evset, names[i]), names[i]);
	check(PAPI_start(evset), "PAPI_start");
	if (failed || tly_evset_get(evset, &es) != PAPI_OK || es->nparts != 1 || !es->a->part[0].ctl)
		return 1;
	fl.n = tly_pe_ctl_groups(es->a->part[0].ctl, fl.fd, fl.bytes, MAXG);
	return fl.n > 0 ? 0 : 1;
}

int main(void)
{
	if (setup()) {
		fprintf(stderr, "setup failed\n");
		return 1;
	}
	printf("3 software events in %d perf group(s) (one read()/ioctl per group); medians of %d batches x %d calls\n",
	       fl.n, NBATCH, BATCH);
	printf("%-26s %10s %10s %8s\n", "operation", "PAPI ns", "floor ns", "ratio");
	measure("PAPI_read vs read()", papi_read, sys_read, 1.15);
	if (fl.n > 1)
		measure("PAPI_read vs 1 read()", papi_read, sys_read1, 0);
	measure("PAPI_accum vs read+RESET", papi_accum, sys_accum, 0);
	measure("PAPI_reset vs RESET", papi_reset, sys_reset, 0);
	check(PAPI_stop(evset, vals), "PAPI_stop");
	measure("start+stop vs ioctls", papi_start_stop, sys_start_stop, 1.25);
	PAPI_shutdown();
	return failed;
}

/*
 * bench_pmu_cost.c - instructions per PAPI_read, PAPI_start+PAPI_stop,
 * PAPI_accum and PAPI_reset, for Tally and for PAPI 7.0 in the same
 * arm64 guest (testsuite/pmuvm: `run.sh -L pmubench`).
 *
 * The same source is built twice: against Tally (bench_pmu_cost) and
 * against the guest's Debian PAPI 7.0 (bench_pmu_cost_papi70, only in the
 * cross build).  The operations run on a set {PAPI_TOT_CYC, PAPI_TOT_INS};
 * the measurement is a separate per-thread perf counter of retired
 * instructions opened directly (user only, and user + kernel: the cost a
 * program really pays, system calls included), read before and after N
 * calls; the counter's own read cost (an empty measurement) is
 * subtracted and the best of REPS rounds kept (kernel interrupts only
 * ever add).  Under QEMU -icount shift=0 counts are deterministic, so
 * one run's table is the table.
 *
 *   bench_pmu_cost --raw          print "op user total" lines
 *   bench_pmu_cost --ref PROGRAM  also run PROGRAM --raw (the PAPI 7.0
 *                                 build) and print both with ratios;
 *                                 exit 1 if Tally costs more anywhere
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "papi.h"
#include "th_spawn.h"

#define N 2000
#define REPS 5
#define NOPS 4

enum { OP_READ, OP_STARTSTOP, OP_ACCUM, OP_RESET };
static const char *const op_names[NOPS] = { "PAPI_read", "PAPI_start+PAPI_stop", "PAPI_accum", "PAPI_reset" };

struct cost {
	double user, total;
};

static int open_ins(int exclude_kernel)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.exclude_kernel = exclude_kernel ? 1 : 0;
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

static uint64_t rd(int fd)
{
	uint64_t v = 0;

	if (read(fd, &v, sizeof v) != (ssize_t)sizeof v)
		abort();
	return v;
}

static int run_op(int op, int set, long long *vals, int n)
{
	int rc = PAPI_OK;

	for (int i = 0; i < n && rc == PAPI_OK; i++) {
		switch (op) {
		case OP_READ: rc = PAPI_read(set, vals); break;
		case OP_STARTSTOP:
			rc = PAPI_stop(set, vals);
			if (rc == PAPI_OK)
				rc = PAPI_start(set);
			break;
		case OP_ACCUM: rc = PAPI_accum(set, vals); break;
		default: rc = PAPI_reset(set); break;
		}
	}
	return rc;
}

/* Instructions of n calls of op, best of REPS (user, user + kernel). */
static int measure(int op, int set, int fu, int ft, int n, struct cost *c)
{
	long long vals[2];

	c->user = c->total = 1e300;
	for (int r = 0; r < REPS; r++) {
		uint64_t u0 = rd(fu), t0 = rd(ft);
		int rc = run_op(op, set, vals, n);
		uint64_t t1 = rd(ft), u1 = rd(fu);

		if (rc != PAPI_OK)
			return rc;
		if ((double)(u1 - u0) < c->user)
			c->user = (double)(u1 - u0);
		if ((double)(t1 - t0) < c->total)
			c->total = (double)(t1 - t0);
	}
	return PAPI_OK;
}

static int costs(struct cost out[NOPS])
{
	int set = PAPI_NULL, fu = open_ins(1), ft = open_ins(0), rc;
	struct cost empty, c;

	if (fu < 0 || ft < 0) {
		fprintf(stderr, "perf_event_open of instructions failed: no hardware PMU here\n");
		return 77;
	}
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT || PAPI_create_eventset(&set) != PAPI_OK ||
	    PAPI_add_event(set, PAPI_TOT_CYC) != PAPI_OK || PAPI_add_event(set, PAPI_TOT_INS) != PAPI_OK ||
	    PAPI_start(set) != PAPI_OK) {
		fprintf(stderr, "PAPI_TOT_CYC and PAPI_TOT_INS cannot be counted here\n");
		return 77;
	}
	run_op(OP_READ, set, (long long[2]){ 0 }, 100); /* warm up */
	measure(OP_READ, set, fu, ft, 0, &empty);
	for (int op = 0; op < NOPS; op++) {
		rc = measure(op, set, fu, ft, N, &c);
		if (rc != PAPI_OK) {
			fprintf(stderr, "%s failed: %s\n", op_names[op], PAPI_strerror(rc));
			return 1;
		}
		out[op].user = (c.user - empty.user) / N;
		out[op].total = (c.total - empty.total) / N;
	}
	PAPI_stop(set, (long long[2]){ 0 });
	PAPI_shutdown();
	return 0;
}

static int read_ref(const char *prog, struct cost ref[NOPS])
{
	char line[256], name[64];
	char *argv[] = { (char *)prog, "--raw", NULL };
	int got = 0;
	pid_t pid;
	FILE *p = th_spawn_read(argv, &pid);

	if (!p)
		return -1;
	while (fgets(line, sizeof line, p)) {
		double u, t;

		for (int op = 0; op < NOPS; op++)
			if (sscanf(line, "%63s %lf %lf", name, &u, &t) == 3 && strcmp(name, op_names[op]) == 0) {
				ref[op].user = u;
				ref[op].total = t;
				got++;
			}
	}
	return th_spawn_wait(p, pid) == 0 && got == NOPS ? 0 : -1;
}

static int table(const struct cost me[NOPS], const struct cost ref[NOPS])
{
	int worse = 0;

	printf("\ninstructions per call (best of %d rounds of %d calls; set = PAPI_TOT_CYC + PAPI_TOT_INS)\n", REPS, N);
	printf("%-22s %12s %12s %8s   %10s %10s %8s\n", "operation", "Tally u+k", "PAPI7 u+k", "ratio", "Tally u",
	       "PAPI7 u", "ratio");
	for (int op = 0; op < NOPS; op++) {
		printf("%-22s %12.1f %12.1f %8.3f   %10.1f %10.1f %8.3f\n", op_names[op], me[op].total, ref[op].total,
		       me[op].total / ref[op].total, me[op].user, ref[op].user, me[op].user / ref[op].user);
		if (me[op].total > ref[op].total)
			worse++;
	}
	if (worse)
		printf("Tally costs more than PAPI 7.0 in %d operation(s)\n", worse);
	return worse ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct cost me[NOPS], ref[NOPS];
	int rc = costs(me);

	if (rc)
		return rc;
	if (argc > 1 && strcmp(argv[1], "--raw") == 0) {
		for (int op = 0; op < NOPS; op++)
			printf("%s %.1f %.1f\n", op_names[op], me[op].user, me[op].total);
		return 0;
	}
	if (argc > 2 && strcmp(argv[1], "--ref") == 0) {
		if (read_ref(argv[2], ref) != 0) {
			fprintf(stderr, "the reference %s gave no numbers\n", argv[2]);
			return 1;
		}
		return table(me, ref);
	}
	for (int op = 0; op < NOPS; op++)
		printf("%-22s %10.1f user %10.1f user+kernel instructions per call\n", op_names[op], me[op].user,
		       me[op].total);
	printf("(no reference: run in the arm64 guest, testsuite/pmuvm/run.sh -L pmubench)\n");
	return 0;
}

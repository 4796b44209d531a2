/*
 * bench_pmu_cost_parts.c - where Tally's user-mode instructions go in
 * PAPI_read, PAPI_reset and PAPI_start+PAPI_stop (companion of
 * bench_pmu_cost.c; run in the arm64 guest: testsuite/pmuvm/run.sh -L
 * pmubench).  Each layer is timed alone with the same method (user-only
 * retired instructions of a separate counter, best of REPS rounds of N
 * calls, the empty measurement subtracted) on the same running set:
 *   api      tly_api_set: library check + lock-free set lookup
 *   evset    tly_evset_values / tly_evset_reset / start+stop of the core
 *   ctl      the perf_event component's hook alone
 *   user rd  one tly_pe_rdpmc_read (seqlock + mrs) of one counter
 *   ioctl    the bare system call the component makes
 * and the ratio of each to the whole PAPI_* call.
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "api/api_common.h"
#include "components/perf_event/pe_internal.h"
#include "core/part.h"

#define N 2000
#define REPS 5

enum { K_PAPI_READ, K_API, K_EVSET_READ, K_CTL_READ, K_USER_RD, K_PAPI_RESET, K_EVSET_RESET, K_CTL_RESET,
       K_IOCTL_RESET, K_PAPI_STARTSTOP, K_CTL_STARTSTOP, NK };
static const char *const names[NK] = {
	"PAPI_read", "  tly_api_set", "  tly_evset_values", "  ctl_read (component)", "  tly_pe_rdpmc_read x1",
	"PAPI_reset", "  tly_evset_reset", "  ctl_reset (component)", "  ioctl(RESET) bare",
	"PAPI_start+PAPI_stop", "  ctl_start+ctl_stop (component)",
};

struct ctx {
	int id;
	struct tly_evset *es;
	struct tly_pe_ctl *ctl;
	long long v[8];
};

static int open_user_ins(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

static void once(int k, struct ctx *c)
{
	struct tly_evset *es;

	switch (k) {
	case K_PAPI_READ: PAPI_read(c->id, c->v); break;
	case K_API: tly_api_set(c->id, &es); break;
	case K_EVSET_READ: tly_evset_values(c->es, c->v); break;
	case K_CTL_READ: tly_cmp_perf_event.ctl_read(c->ctl, c->v); break;
	case K_USER_RD: tly_pe_rdpmc_read(c->ctl->g.pages[0], c->v); break;
	case K_PAPI_RESET: PAPI_reset(c->id); break;
	case K_EVSET_RESET: tly_evset_reset(c->es); break;
	case K_CTL_RESET: tly_cmp_perf_event.ctl_reset(c->ctl); break;
	case K_IOCTL_RESET: ioctl(c->ctl->g.sub_fd[0], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP); break;
	case K_PAPI_STARTSTOP: PAPI_stop(c->id, c->v); PAPI_start(c->id); break;
	default: tly_cmp_perf_event.ctl_stop(c->ctl); tly_cmp_perf_event.ctl_start(c->ctl); break;
	}
}

static double cost(int fd, int k, struct ctx *c, int n)
{
	double best = 1e300;

	for (int r = 0; r < REPS; r++) {
		uint64_t a = 0, b = 0;

		if (read(fd, &a, sizeof a) != sizeof a)
			return -1;
		for (int i = 0; i < n; i++)
			once(k, c);
		if (read(fd, &b, sizeof b) != sizeof b)
			return -1;
		if ((double)(b - a) < best)
			best = (double)(b - a);
	}
	return best;
}

int main(void)
{
	struct ctx c = { .id = PAPI_NULL };
	int fd = open_user_ins();
	double empty, whole = 1;

	if (fd < 0 || PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT ||
	    PAPI_create_eventset(&c.id) != PAPI_OK || PAPI_add_event(c.id, PAPI_TOT_CYC) != PAPI_OK ||
	    PAPI_add_event(c.id, PAPI_TOT_INS) != PAPI_OK || PAPI_start(c.id) != PAPI_OK) {
		printf("SKIP: PAPI_TOT_CYC and PAPI_TOT_INS cannot be counted here\n");
		return 77;
	}
	tly_api_set(c.id, &c.es);
	c.ctl = c.es->a->part[0].ctl;
	printf("set: %d part(s), %d sub-group(s), user reads %s\n", c.es->nparts, c.ctl->g.nsub,
	       c.ctl->g.rdpmc ? "on" : "off");
	empty = cost(fd, K_PAPI_READ, &c, 0);
	printf("%-34s %10s %10s\n", "user instructions per call", "count", "of whole");
	for (int k = 0; k < NK; k++) {
		double v = (cost(fd, k, &c, N) - empty) / N;

		if (k == K_PAPI_READ || k == K_PAPI_RESET || k == K_PAPI_STARTSTOP)
			whole = v;
		printf("%-34s %10.1f %10.3f\n", names[k], v, v / whole);
	}
	PAPI_stop(c.id, c.v);
	PAPI_shutdown();
	return 0;
}

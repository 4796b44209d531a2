/*
 * test_gpu_enum.c - every event enumeration ends (issue 38.1): for every
 * active component, PAPI_enum_cmp_event over its events, and for each
 * event over its qualifiers (PAPI_NTV_ENUM_UMASKS), within a bound on the
 * count and on the time; the cuda component gives exactly its catalog:
 * one event per base metric of each GPU that can profile, one qualifier
 * per variant (rollup/submetric) but the default one its name carries,
 * counted through tally_gpu.h.  Then
 * papi_native_avail (argv[1]) with and without qualifiers ends within
 * the same bounds and reports the events the enumeration found.  On the
 * H100 papi_native_avail ran past 8.5 minutes (70 million lines in 90 s):
 * the default variant, named as its event, walked back to the event.  Skips (77) without a GPU.
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tharness.h"
#include "gpu_present.h"
#include "papi.h"
#include "tally_gpu.h"

#define MAX_EVENTS 5000000L   /* events + qualifiers of one component */
#define MAX_SECONDS 120.0     /* one component's whole enumeration */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct counts {
	long events, quals;
	double seconds;
	int bounded;   /* 0: a bound was passed */
};

/* Qualifiers of event `code`; each a new code with a name. */
static long qualifiers(int code, int cidx, long room, double t_end)
{
	int q = code, prev = code;
	long n = 0;
	char name[PAPI_HUGE_STR_LEN];

	if (PAPI_enum_cmp_event(&q, PAPI_NTV_ENUM_UMASKS, cidx) != PAPI_OK)
		return 0;
	do {
		if (q == prev || PAPI_event_code_to_name(q, name) != PAPI_OK) {
			th_fail(__FILE__, __LINE__, "a qualifier repeats its predecessor or has no name");
			return n;
		}
		prev = q;
		if (++n > room || now_s() > t_end)
			return n;
	} while (PAPI_enum_cmp_event(&q, PAPI_NTV_ENUM_UMASKS, cidx) == PAPI_OK);
	return n;
}

static struct counts enumerate(int cidx)
{
	struct counts k = { .bounded = 1 };
	double t0 = now_s(), t_end = t0 + MAX_SECONDS;
	int code = PAPI_NATIVE_MASK;

	if (PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx) != PAPI_OK)
		return k;
	do {
		k.events++;
		k.quals += qualifiers(code, cidx, MAX_EVENTS - k.events - k.quals, t_end);
		if (k.events + k.quals > MAX_EVENTS || now_s() > t_end) {
			k.bounded = 0;
			break;
		}
	} while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx) == PAPI_OK);
	k.seconds = now_s() - t0;
	return k;
}

/* The cuda catalog through tally_gpu.h: base metrics and variants of every
 * GPU that can profile. */
static void cuda_truth(long *events, long *quals)
{
	int ndev = 0;

	*events = *quals = 0;
	TH_CHECK(tally_gpu_num_devices(&ndev) == PAPI_OK && ndev > 0);
	for (int d = 0; d < ndev; d++) {
		tally_gpu_device_info_t di = { .size = sizeof di };
		long in_domains = 0;

		TH_CHECK(tally_gpu_device_info(d, &di) == PAPI_OK);
		if (di.host_only || !di.profiling_ok)
			continue;
		*events += di.num_metrics;
		for (int dom = 0; dom < di.num_domains; dom++) {
			tally_gpu_domain_info_t dm = { .size = sizeof dm };
			tally_gpu_event_t *ids;
			int n;

			TH_CHECK(tally_gpu_domain_info(d, dom, &dm) == PAPI_OK);
			n = dm.num_events;
			ids = calloc((size_t)n + 1, sizeof *ids);
			TH_CHECK(ids && tally_gpu_domain_events(d, dom, ids, &n) == PAPI_OK && n == dm.num_events);
			for (int i = 0; ids && i < n; i++) {
				tally_gpu_event_info_t ei = { .size = sizeof ei };

				TH_CHECK(tally_gpu_event_info(d, ids[i], &ei) == PAPI_OK);
				/* one variant is the event's own name (the default) */
				*quals += ei.num_variants > 0 ? ei.num_variants - 1 : 0;
			}
			in_domains += n;
			free(ids);
		}
		TH_EQ(in_domains, (long)di.num_metrics);
		printf("GPU %d %s (%s): %d base metrics in %d domains\n", d, di.name, di.chip, di.num_metrics,
		       di.num_domains);
	}
}

/* papi_native_avail ARGS: its "Total events reported" (-1 when missing),
 * lines read, seconds; killed past the bounds. */
static long native_avail(const char *prog, const char *arg, long *lines, double *secs)
{
	int fd[2];
	pid_t pid;
	FILE *f;
	char buf[8192];
	long total = -1;
	int st = 0, killed = 0;
	double t0 = now_s();

	*lines = 0;
	TH_CHECK(pipe(fd) == 0);
	pid = fork();
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execl(prog, prog, arg, (char *)NULL);   /* arg NULL: no argument */
		_exit(127);
	}
	close(fd[1]);
	f = fdopen(fd[0], "r");
	while (f && fgets(buf, sizeof buf, f)) {
		if (!strncmp(buf, "Total events reported: ", 23))
			total = atol(buf + 23);
		if (++*lines > 4 * MAX_EVENTS || now_s() - t0 > MAX_SECONDS) {
			kill(pid, SIGKILL);
			killed = 1;
			break;
		}
	}
	if (f)
		fclose(f);
	waitpid(pid, &st, 0);
	*secs = now_s() - t0;
	TH_CHECK(!killed);
	TH_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	return total;
}

int main(int argc, char **argv)
{
	char why[512] = "";
	int gpu = gpu_present(why, sizeof why), cuda = -1;
	long all = 0, ev, q, lines;
	double secs;

	if (gpu == 0) {
		printf("SKIP: %s\n", why);
		return 77;
	}
	TH_CHECK(gpu > 0);
	if (argc < 2)
		TH_FATAL("usage: test_gpu_enum PATH_TO_papi_native_avail");
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		TH_FATAL("PAPI_library_init failed");
	for (int c = 0; c < PAPI_num_components(); c++) {
		const PAPI_component_info_t *ci = PAPI_get_component_info(c);
		struct counts k;

		if (!ci || ci->disabled)
			continue;
		k = enumerate(c);
		printf("%-12s %8ld events %9ld qualifiers %8.2f s%s\n", ci->name, k.events, k.quals, k.seconds,
		       k.bounded ? "" : "  BOUND PASSED");
		TH_CHECK(k.bounded);
		all += k.events;
		if (!strcmp(ci->name, "cuda")) {
			cuda = c;
			cuda_truth(&ev, &q);
			printf("cuda catalog: %ld base metrics, %ld variants\n", ev, q);
			TH_EQ(k.events, ev);
			TH_EQ(k.quals, q);
		}
	}
	TH_CHECK(cuda >= 0);   /* a GPU is here: the cuda component is active */
	TH_EQ(native_avail(argv[1], "--noumasks", &lines, &secs), all);
	printf("papi_native_avail --noumasks: %ld lines, %.2f s\n", lines, secs);
	TH_EQ(native_avail(argv[1], NULL, &lines, &secs), all);
	printf("papi_native_avail (qualifiers listed): %ld lines, %.2f s\n", lines, secs);
	return th_done();
}

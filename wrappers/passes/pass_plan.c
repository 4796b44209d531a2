/*
 * pass_plan.c - the pass schedule of a CPU event list.  Which events can
 * be counted together is found by trying: an event set of the candidate
 * group is started and stopped for real, so every constraint of the
 * component (PMU counters, TALLY_PERF_MAX_COUNTERS, event conflicts) is
 * honoured without a model of it.
 */
#include "passes/passes.h"

#include <stdio.h>
#include <string.h>

#include "papi.h"
#include "regions/regions.h"
#include "runtime/rt_event_msg.h"
#include "runtime/rt_parts.h"

static int try_group(const int *codes, int n)
{
	int es = PAPI_NULL, ok = PAPI_create_eventset(&es) == PAPI_OK;
	long long v[TLY_PASS_MAX_EVENTS];

	for (int i = 0; ok && i < n; i++)
		ok = PAPI_add_event(es, codes[i]) == PAPI_OK;
	ok = ok && PAPI_start(es) == PAPI_OK;
	if (ok)
		PAPI_stop(es, v);
	if (es != PAPI_NULL) {
		PAPI_cleanup_eventset(es);
		PAPI_destroy_eventset(&es);
	}
	return ok;
}

/* The pass that can take `code` next to the events already placed. */
static int place(const int *codes, const int *pass_of, int nev, int npasses, int code)
{
	int g[TLY_PASS_MAX_EVENTS];

	for (int p = 0; p <= npasses; p++) {
		int n = 0;

		for (int i = 0; i < nev; i++)
			if (pass_of[i] == p)
				g[n++] = codes[i];
		g[n++] = code;
		if (try_group(g, n))
			return p;
	}
	return -1;
}

int tly_pass_plan_cpu(struct tly_rt_sched *s, const char *const *names, int n)
{
	int codes[TLY_PASS_MAX_EVENTS];
	const PAPI_hw_info_t *hw = PAPI_get_hardware_info();

	memset(s, 0, sizeof *s);
	snprintf(s->device, sizeof s->device, "%s", hw ? hw->model_string : "cpu");
	for (int i = 0; i < n && s->nev < TLY_PASS_MAX_EVENTS; i++) {
		int code, p = -1;

		if (PAPI_event_name_to_code(names[i], &code) == PAPI_OK && PAPI_query_event(code) == PAPI_OK)
			p = place(codes, s->pass_of, s->nev, s->npasses, code);
		if (p < 0) {
			tly_rt_event_left_out(names[i]); /* once per job and name */
			continue;
		}
		codes[s->nev] = code;
		s->pass_of[s->nev] = p;
		snprintf(s->names[s->nev++], TLY_PASS_NAME, "%s", names[i]);
		if (p == s->npasses)
			s->npasses++;
	}
	tly_pass_hash(s);
	return s->nev ? 0 : -1;
}

/* Append `name` to a comma-separated list. */
static void append(char *list, size_t cap, const char *name, size_t len)
{
	size_t at = strlen(list);

	if (at + len + 2 < cap)
		snprintf(list + at, cap - at, "%s%.*s", at ? "," : "", (int)len, name);
}

static int split_cpu(struct tly_pass_state *job, const char *list, const char **names, char buf[][TLY_PASS_NAME])
{
	int n = 0;

	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");

		if (len && !strncmp(p, "cuda:::", 7)) {
			append(job->gpu_list, sizeof job->gpu_list, p, len);
		} else if (len) {
			append(job->cpu_list, sizeof job->cpu_list, p, len);
			if (n < TLY_PASS_MAX_EVENTS) {
				snprintf(buf[n], TLY_PASS_NAME, "%.*s", (int)len, p);
				names[n] = buf[n];
				n++;
			}
		}
		p += len + (p[len] == ',');
	}
	return n;
}

int tly_pass_take(const char **list)
{
	struct tly_pass_state *job = tly_pass_state();
	const struct tly_rt_cfg *cfg = &tly_rt_proc()->opt.raw;
	char buf[TLY_PASS_MAX_EVENTS][TLY_PASS_NAME];
	const char *names[TLY_PASS_MAX_EVENTS];
	int n = split_cpu(job, *list, names, buf);

	if (job->gpu_list[0])
		*list = job->cpu_list;
	if (!strcmp(cfg->pass_mode, "off") || n == 0)
		return 0;
	if (tly_pass_plan_cpu(&job->cpu, names, n) < 0)
		return 0;
	job->own_hash[0] = job->cpu.hash;
	job->agrees[0] = 1;
	if (tly_pass_replay_take(job, list) || job->cpu.npasses < 2)
		return 0;   /* application replay: the runtime counts this run's pass */
	if (!cfg->pass_region[0]) {
		tly_rt_log_job(1, "the %d CPU events need %d passes; set TALLY_PASS_REGION to count them all "
			       "by region rotation (now the ones that do not fit are left out)", job->cpu.nev,
			       job->cpu.npasses);
		job->cpu.nev = 0;
		return 0;
	}
	job->rotate = 1;
	tly_region_rotate(tly_pass_enter, tly_pass_exit);
	tly_rt_log_job(2, "%d CPU events in %d passes, rotated over visits of region '%s'", job->cpu.nev,
		       job->cpu.npasses, cfg->pass_region);
	return 1;
}

const struct tly_rt_part tly_rt_part_passes = {
	.name = "passes",
	.take_events = tly_pass_take,
	.job_start = tly_pass_sync_cpu,
	.job_started = tly_pass_sync_gpu,
	.sched = &tly_pass_sched_view,
};

/*
 * pass_replay.c - application replay, the runtime's side.  tally-run
 * --passes runs the whole job once per pass with TALLY_PASS_INDEX=k; each
 * run computes the same schedule (the same trial of event groups) and
 * counts only pass k's events in its ordinary region tree, so the file of
 * run k holds exact values for its events; tally-run merges the files.
 */
#include "passes/passes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void append(char *list, size_t cap, const char *name)
{
	size_t at = strlen(list);

	if (at + strlen(name) + 2 < cap)
		snprintf(list + at, cap - at, "%s%s", at ? "," : "", name);
}

int tly_pass_replay_index(void)
{
	const char *idx = tly_rt_proc()->opt.raw.pass_index;
	char *end;
	long k;

	if (!idx[0])
		return -1;
	k = strtol(idx, &end, 10);
	if (*end || k < 0 || k > 1000000) {
		tly_rt_log(2, "TALLY_PASS_INDEX='%s' is not a pass number; counting pass 0", idx);   /* said once by rt_config_check.c */
		k = 0;
	}
	return (int)k;
}

int tly_pass_replay_take(struct tly_pass_state *job, const char **list)
{
	long k = tly_pass_replay_index();

	if (k < 0 || job->cpu.nev == 0)
		return 0;
	if (k >= job->cpu.npasses) {
		tly_rt_log(1, "TALLY_PASS_INDEX=%ld but the CPU events need %d pass(es): counting pass %ld",
			   k, job->cpu.npasses, k % job->cpu.npasses);
		k %= job->cpu.npasses;
	}
	job->replay = 1;
	job->replay_index = (int)k;
	job->replay_list[0] = '\0';
	for (int i = 0; i < job->cpu.nev; i++)
		if (job->cpu.pass_of[i] == k)
			append(job->replay_list, sizeof job->replay_list, job->cpu.names[i]);
	*list = job->replay_list;
	tly_rt_log(2, "application replay: pass %ld of %d counts %s", k, job->cpu.npasses, job->replay_list);
	return 1;
}

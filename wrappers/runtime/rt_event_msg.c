/*
 * rt_event_msg.c - one line per unusable event name, with the names the
 * user probably meant.  Both the per-thread sets (rt_state.c) and the pass
 * planner (passes/pass_plan.c) meet a misspelt name; each used to say it
 * in its own words and the planner from every rank.
 */
#include "runtime/rt_event_msg.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "papi.h"
#include "runtime/rt_log.h"

#define SAID_MAX 32
#define NAME_CMP 96 /* longer names are compared by their first 96 bytes */

static struct {
	pthread_mutex_t lock;
	int n;
	char names[SAID_MAX][PAPI_MAX_STR_LEN];
} said = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Case-insensitive edit distance, both strings cut at NAME_CMP. */
static int distance(const char *a, const char *b)
{
	int la = (int)strnlen(a, NAME_CMP), lb = (int)strnlen(b, NAME_CMP);
	int row[NAME_CMP + 1];

	for (int j = 0; j <= lb; j++)
		row[j] = j;
	for (int i = 1; i <= la; i++) {
		int diag = row[0];

		row[0] = i;
		for (int j = 1; j <= lb; j++) {
			int up = row[j], cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			int best = diag + cost;

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

struct near {
	const char *name;
	int best, count;
	char *out;
	size_t cap;
};

static void consider(struct near *nr, int code)
{
	char cand[PAPI_MAX_STR_LEN];

	if (PAPI_event_code_to_name(code, cand) != PAPI_OK)
		return;
	int d = distance(nr->name, cand);
	if (d > nr->best)
		return;
	if (d < nr->best) {
		nr->best = d;
		nr->count = 0;
		nr->out[0] = '\0';
	}
	size_t at = strlen(nr->out);
	if (nr->count < 3 && at + strlen(cand) + 3 < nr->cap) {
		snprintf(nr->out + at, nr->cap - at, "%s%s", at ? ", " : "", cand);
		nr->count++;
	}
}

int tly_rt_event_suggest(const char *name, char *out, size_t cap)
{
	int len = (int)strnlen(name, NAME_CMP);
	struct near nr = { .name = name, .best = len / 3 > 2 ? len / 3 : 2, .out = out, .cap = cap };
	int code;

	if (!out || cap == 0)
		return 0;
	out[0] = '\0';
	code = PAPI_PRESET_MASK;
	if (PAPI_enum_event(&code, PAPI_ENUM_FIRST) == PAPI_OK)
		do
			consider(&nr, code);
		while (PAPI_enum_event(&code, PAPI_ENUM_EVENTS) == PAPI_OK);
	/* the CPU component only: asking another (cuda) would wake it */
	code = PAPI_NATIVE_MASK;
	if (PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, 0) == PAPI_OK)
		do
			consider(&nr, code);
		while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, 0) == PAPI_OK);
	return nr.count;
}

/* 1 the first time `name` is seen (and remembered), 0 after. */
static int first_time(const char *name)
{
	int first = 1;

	pthread_mutex_lock(&said.lock);
	for (int i = 0; i < said.n && first; i++)
		if (!strncmp(said.names[i], name, PAPI_MAX_STR_LEN - 1))
			first = 0;
	if (first && said.n < SAID_MAX)
		snprintf(said.names[said.n++], PAPI_MAX_STR_LEN, "%s", name);
	pthread_mutex_unlock(&said.lock);
	return first;
}

void tly_rt_event_left_out(const char *name)
{
	char near[3 * PAPI_MAX_STR_LEN];
	int code;

	if (!name || !first_time(name))
		return;
	if (PAPI_event_name_to_code(name, &code) == PAPI_OK) {
		tly_rt_log_job(1, "event '%.*s' cannot be counted here; left out", NAME_CMP, name);
		return;
	}
	if (tly_rt_event_suggest(name, near, sizeof near))
		tly_rt_log_job(1, "event '%.*s' is not known here; left out (did you mean %s?)", NAME_CMP, name, near);
	else
		tly_rt_log_job(1, "event '%.*s' is not known here (papi_native_avail lists the events); left out",
			       NAME_CMP, name);
}

/*
 * hl_region_out.c - the JSON summary of the high-level region API.  The
 * format is documented at the top of papi_hl_region.c.
 */
#include "api/hl_region.h"
#include "api/hl_common.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "services/safe_file.h"
#include "tally_shared.h"

#define HL_FORMAT_NAME "tally-hl-regions"
#define HL_FORMAT_VERSION 1

/* Once-only messages: where the file went, or that it could not be
 * written. */
static struct {
	pthread_mutex_t lock;
	int fallback_told, where_told;
} hl_out = { PTHREAD_MUTEX_INITIALIZER, 0, 0 };

/* Say once where the summary went: a program measured without tally-run
 * (mpirun forgot it) otherwise leaves tally_hl_*.json files unannounced. */
static void say_where(const char *path)
{
	pthread_mutex_lock(&hl_out.lock);
	if (!hl_out.where_told && !tly_hl_quiet() && tly_launcher_rank() <= 0)
		fprintf(stderr, "tally: region summary (PAPI_hl_*/tally_region_*) written to %s, one such file per "
			"process; under tally-run the regions go into the job's .h5 instead (docs/hl-regions.md)\n", path);
	hl_out.where_told = 1;
	pthread_mutex_unlock(&hl_out.lock);
}

static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

/* {"name": value, ...} of the events; null where the thread could not
 * count an event. */
static void put_values(FILE *f, const struct tly_hl_events *ev, const struct tly_hl_thread *t,
		       const long long *values)
{
	fputc('{', f);
	for (int i = 0; i < ev->n; i++) {
		fputs(i ? ", " : "", f);
		put_string(f, ev->names[i]);
		if (t->slot[i] >= 0)
			fprintf(f, ": %lld", values[i]);
		else
			fputs(": null", f);
	}
	fputc('}', f);
}

static void put_region(FILE *f, const struct tly_hl_events *ev, const struct tly_hl_thread *t,
		       const struct tly_hl_region *r)
{
	fputs("        {\"name\": ", f);
	put_string(f, r->name);
	fprintf(f, ", \"visits\": %lld, \"real_time_nsec\": %lld, \"events\": ", r->visits,
		r->real_nsec);
	put_values(f, ev, t, r->values);
	fprintf(f, ", \"reads\": %lld", r->reads);
	if (r->reads) {
		fprintf(f, ", \"last_read\": {\"real_time_nsec\": %lld, \"events\": ",
			r->last_read_nsec);
		put_values(f, ev, t, r->last_read);
		fputc('}', f);
	}
	fputc('}', f);
}

static void put_thread(FILE *f, const struct tly_hl_events *ev, struct tly_hl_thread *t)
{
	pthread_mutex_lock(&t->lock);
	fprintf(f, "    {\"tid\": %ld, \"regions\": [", (long)t->tid);
	for (const struct tly_hl_region *r = t->first; r; r = r->next) {
		fputs(r == t->first ? "\n" : ",\n", f);
		put_region(f, ev, t, r);
	}
	fputs(t->first ? "\n    ]}" : "]}", f);
	pthread_mutex_unlock(&t->lock);
}

static void host_name(char *buf, size_t len)
{
	if (gethostname(buf, len) != 0 || !buf[0])
		snprintf(buf, len, "unknown");
	buf[len - 1] = '\0';
}

void tly_hl_print_json(FILE *f, const struct tly_hl_events *ev, struct tly_hl_thread *threads)
{
	char host[HOST_NAME_MAX + 1];

	host_name(host, sizeof host);
	fprintf(f, "{\n  \"format\": \"%s\",\n  \"version\": %d,\n  \"hostname\": ",
		HL_FORMAT_NAME, HL_FORMAT_VERSION);
	put_string(f, host);
	fprintf(f, ",\n  \"pid\": %ld,\n  \"events\": [", (long)getpid());
	for (int i = 0; i < ev->n; i++) {
		fputs(i ? ", " : "", f);
		put_string(f, ev->names[i]);
	}
	fputs("],\n  \"threads\": [", f);
	for (struct tly_hl_thread *t = threads; t; t = t->next) {
		fputs(t == threads ? "\n" : ",\n", f);
		put_thread(f, ev, t);
	}
	fputs(threads ? "\n  ]\n}\n" : "]\n}\n", f);
}

static mode_t current_umask(void)
{
	mode_t m = umask(0);

	umask(m);
	return m;
}

/* TALLY_DISABLE=1: Tally writes nothing, this summary included. */
static int disabled(void)
{
	return tly_setting_flag(TLY_SET_disable);
}

/* Write to a temporary name and rename, so a reader never sees half a file
 * (the summary is rewritten at PAPI_hl_stop and at exit).  0 or errno. */
static int write_file(const char *path, const struct tly_hl_events *ev,
		      struct tly_hl_thread *threads)
{
	char tmp[PATH_MAX + 16];
	FILE *f;

	/* the safe-file service: a unique name created exclusively (a link
	 * planted at a guessable name is never followed), renamed into place;
	 * never world-writable */
	f = tly_safe_create(path, tmp, sizeof tmp);
	if (!f)
		return errno ? errno : EIO;
	fchmod(fileno(f), 0644 & ~current_umask());
	tly_hl_print_json(f, ev, threads);
	if (tly_safe_commit(f, tmp, path, 1) != 0)
		return errno ? errno : EIO;
	return 0;
}

void tly_hl_write_summary(const struct tly_hl_events *ev, struct tly_hl_thread *threads)
{
	const char *dir = tly_setting_raw(TLY_SET_output_dir);
	char host[HOST_NAME_MAX + 1];
	char path[PATH_MAX];
	int err;

	if (disabled())
		return;
	if (!dir || !*dir)
		dir = ".";
	host_name(host, sizeof host);
	if (snprintf(path, sizeof path, "%s/tally_hl_%s_%ld.json", dir, host, (long)getpid()) >=
	    (int)sizeof path)
		err = ENAMETOOLONG;
	else
		err = write_file(path, ev, threads);
	if (!err) {
		say_where(path);
		return;
	}
	pthread_mutex_lock(&hl_out.lock);
	if (!hl_out.fallback_told)
		fprintf(stderr, "tally: cannot write the region summary to '%s' (%s); "
			"printing it to stderr instead\n", path, strerror(err));
	hl_out.fallback_told = 1;
	tly_hl_print_json(stderr, ev, threads);
	fflush(stderr);
	pthread_mutex_unlock(&hl_out.lock);
}

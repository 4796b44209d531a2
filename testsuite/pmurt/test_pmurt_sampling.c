/*
 * test_pmurt_sampling.c - call-path sampling on hardware counters, the
 * guest's half (label pmurt; docs/pmuvm.md "The runtime in the guest").
 *
 * Runs pmurt_app plain, then under tally-run sampling every PERIOD of
 * PAPI_TOT_CYC and of PAPI_TOT_INS, and once on PAPI_L1_DCM, which the
 * guest's PMU cannot count: each run must end with the program's own exit
 * status and standard output; the counted events must not turn sampling
 * off; PAPI_L1_DCM must be refused in exactly one line naming it.  The
 * files (the .h5 of each run, the program's own counts, the refusal's
 * stderr) are printed gzipped between `@@pmuvm file NAME.gz SIZE CRC32` and
 * `@@pmuvm endfile NAME.gz` in base64; testsuite/pmuvm/run.py writes them to
 * <build>/pmuvm-files/pmurt_sampling/ and runs the host-side check
 * (check_pmurt.py, test pmurt_sampling_check): samples per function
 * against the program's counts / PERIOD, names and lines.
 *
 * test_pmurt_sampling TALLY_RUN PMURT_APP
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tharness.h"

extern char **environ;

#define APP_STATUS 3   /* the program's exit status, passed through Tally */

/*
 * The guest's PMU (QEMU, docs/pmuvm.md "Emulator limits") raises an
 * overflow at once only on the cycle counter; a programmable counter's
 * is seen at the next timer tick (4 ms, 4e6 instructions at HZ=250), and
 * perf then shortens the next period by the lateness, so no period is
 * lost as long as it is longer than a tick.  Hence: PAPI_TOT_CYC every
 * 1e6 with the runtime's own counters on instructions only
 * (--events=PAPI_TOT_INS; by default they count cycles too and hold the
 * cycle counter), and PAPI_TOT_INS every 1e7.  PAPI_L1_DCM and its native
 * event cannot count there at all.  `late` is the case those avoid,
 * PAPI_TOT_INS every 1e6 beside the runtime's default counters: most
 * overflows come more than a period late and bring no signal; the file
 * must count them (sampling_status.unsignalled), not lose them silently.
 */
static const struct row {
	int line;
	const char *tag;     /* file names: TAG.h5, TAG.txt, TAG.out, TAG.err */
	const char *event;   /* --sampling-event */
	const char *events;  /* --events= for the runtime's counters, or NULL */
	const char *iters, *rounds;   /* the program's work */
	int counted;         /* 1: sampled; 0: refused in one line */
} rows[] = {
	{ __LINE__, "cyc", "PAPI_TOT_CYC@1000000", "--events=PAPI_TOT_INS", "100000000", "4", 1 },
	{ __LINE__, "ins", "PAPI_TOT_INS@10000000", NULL, "400000000", "2", 1 },
	{ __LINE__, "late", "PAPI_TOT_INS@1000000", NULL, "100000000", "4", 1 },
	{ __LINE__, "dcm", "PAPI_L1_DCM@100000", NULL, "1000000", "1", 0 },
	{ __LINE__, "raw", "arm_ac57::L1D_CACHE_REFILL@100000", NULL, "1000000", "1", 0 },
};

/* argv with stdout to OUT and stderr to ERR; the wait status, -1 if not run. */
static int run(char *const argv[], const char *out, const char *err)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st = -1;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ) == 0 && waitpid(pid, &st, 0) != pid)
		st = -1;
	posix_spawn_file_actions_destroy(&fa);
	return st;
}

/* The whole file (at most 64 MiB) in a buffer of *len bytes + a NUL. */
static char *slurp(const char *name, size_t *len)
{
	FILE *f = fopen(name, "rb");
	char *buf = NULL;
	long n;

	if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && n < (64L << 20) && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
		buf[n] = '\0';
		*len = (size_t)n;
	} else {
		free(buf);
		buf = NULL;
	}
	if (f)
		fclose(f);
	return buf;
}

static uint32_t crc32(const unsigned char *p, size_t n)
{
	uint32_t c = 0xffffffffu;

	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
	}
	return ~c;
}

/* NAME to stdout in base64 between the markers run.py reads, gzipped
 * (NAME.gz; run.py unpacks it) where gzip runs: the console carries
 * about 100 KB a second and Tally's files shrink about seven times. */
static void dump(const char *name)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char gz[96], line[80];
	char *argv[] = { "/bin/busybox", "gzip", "-c", (char *)name, NULL };
	const char *sent = gz;
	size_t n = 0;
	unsigned char *p;
	int w = 0, ws;

	snprintf(gz, sizeof gz, "%s.gz", name);
	ws = run(argv, gz, "/dev/null");
	if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
		sent = name;
	p = (unsigned char *)slurp(sent, &n);
	TH_CHECK(p != NULL);
	if (!p)
		return;
	printf("@@pmuvm file %s %zu %08x\n", sent, n, (unsigned)crc32(p, n));
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);

		line[w++] = b64[v >> 18 & 63];
		line[w++] = b64[v >> 12 & 63];
		line[w++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
		line[w++] = i + 2 < n ? b64[v & 63] : '=';
		if (w == 76 || i + 3 >= n) {
			printf("%.*s\n", w, line);
			w = 0;
		}
	}
	printf("@@pmuvm endfile %s\n", sent);
	fflush(stdout);
	free(p);
}

/* Lines of TEXT that contain WHAT. */
static int lines_with(const char *text, const char *what)
{
	int k = 0;

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *e = strchr(l, '\n'), *m = strstr(l, what);

		if (m && (!e || m < e))
			k++;
	}
	return k;
}

static void sampled_run(const struct row *r, char *tally_run, char *app, const char *plain_out)
{
	char ev[96], name[96], txt[32], out[32], err[32], st[8];
	char *argv[] = { tally_run, ev, name, "--", app, txt, st, (char *)r->iters, (char *)r->rounds, NULL, NULL };
	char *o, *e, event[64];
	size_t n;
	int ws;

	if (r->events) {   /* before "--" */
		memmove(&argv[4], &argv[3], 7 * sizeof argv[0]);
		argv[3] = (char *)r->events;
	}
	th_at(r->line);
	snprintf(ev, sizeof ev, "--sampling-event=%s", r->event);
	snprintf(name, sizeof name, "--output-name=%s.h5", r->tag);
	snprintf(txt, sizeof txt, "%s.txt", r->tag);
	snprintf(out, sizeof out, "%s.out", r->tag);
	snprintf(err, sizeof err, "%s.err", r->tag);
	snprintf(st, sizeof st, "%d", APP_STATUS);
	snprintf(event, sizeof event, "%.*s", (int)strcspn(r->event, "@"), r->event);
	ws = run(argv, out, err);
	o = slurp(out, &n);
	e = slurp(err, &n);
	printf("-- %s: wait status 0x%x; stderr:\n%s", r->event, (unsigned)ws, e ? e : "(none)\n");
	TH_CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == APP_STATUS);
	TH_CHECK(o && plain_out && strcmp(o, plain_out) == 0);
	if (r->counted) {
		TH_EQ(lines_with(e, "sampling is off"), 0);
	} else {
		char want[128];

		snprintf(want, sizeof want, "tally: sampling is off: %s ", event);
		TH_EQ(lines_with(e, "sampling is off"), 1);
		TH_EQ(lines_with(e, want), 1);
	}
	free(o);
	free(e);
	dump(name + strlen("--output-name="));
	if (r->counted)
		dump(txt);
	else
		dump(err);
	th_at(0);
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/pmurt.XXXXXX", st[8];
	char *plain[] = { argc > 2 ? argv[2] : NULL, "plain.txt", st, "1000000", "1", NULL };
	char *plain_out;
	size_t n;
	int ws;

	if (argc != 3)
		TH_FATAL("usage: test_pmurt_sampling TALLY_RUN PMURT_APP");
	if (!mkdtemp(dir) || chdir(dir) != 0)
		TH_FATAL("no scratch directory");
	snprintf(st, sizeof st, "%d", APP_STATUS);
	ws = run(plain, "plain.out", "plain.err");
	if (WIFEXITED(ws) && WEXITSTATUS(ws) == 77)
		TH_SKIP("no hardware PMU counts PAPI_TOT_CYC and PAPI_TOT_INS here");
	TH_CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == APP_STATUS);
	plain_out = slurp("plain.out", &n);
	TH_CHECK(plain_out && strstr(plain_out, "pmurt_app: 3 functions"));
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		sampled_run(&rows[i], argv[1], argv[2], plain_out);
	free(plain_out);
	return th_done();
}

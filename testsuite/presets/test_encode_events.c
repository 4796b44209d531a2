/*
 * test_encode_events.c - PAPI_encode_events through the public API: error
 * codes, all-or-nothing loading, CPU block matching, replace=0 vs 1, and
 * presets mapped (in test-only files) to perf software events counting what
 * those events count: task-clock against the thread's CPU time, page faults
 * against the pages touched.  Presets PAPI_CA_* are used because no real
 * map defines them, so the test means the same on every machine.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "papi.h"
#include "tharness.h"

#define NPAGES 256

static char dir[] = "/tmp/tally_encode_XXXXXX";

static char *map_file(const char *name, const char *text)
{
	static char path[4][256];
	static int n;
	char *p = path[n++ % 4];
	FILE *f;

	snprintf(p, sizeof path[0], "%s/%s", dir, name);
	f = fopen(p, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		TH_FATAL("cannot write a map file under /tmp");
	return p;
}

static long long thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Burn ~30 ms of CPU, then fault in NPAGES fresh anonymous pages. */
static void workload(void)
{
	long page = sysconf(_SC_PAGESIZE);
	long long end = thread_ns() + 30000000LL;
	volatile unsigned long x = 0;
	char *mem;

	while (thread_ns() < end)
		for (int i = 0; i < 1000; i++)
			x += (unsigned long)i;
	(void)x;
	mem = mmap(NULL, NPAGES * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		TH_FATAL("mmap failed");
	for (long i = 0; i < NPAGES; i++)
		mem[i * page] = 1;
	munmap(mem, NPAGES * page);
}

static void errors(void)
{
	char *bad_kind = map_file("bad_kind.csv",
		"CPU,perf\nPRESET,PAPI_CA_SNP,NOT_DERIVED,perf::TASK-CLOCK\nPRESET,PAPI_CA_SNP,DERIVED_FOO,A,B\n");
	char *bad_sym = map_file("bad_sym.csv", "CPU,perf\nPRESET,PAPI_NO_SUCH,NOT_DERIVED,perf::TASK-CLOCK\n");
	char *other = map_file("other.csv", "CPU,no_such_pmu\nPRESET,PAPI_CA_SNP,NOT_DERIVED,perf::TASK-CLOCK\n");
	char missing[300];

	snprintf(missing, sizeof missing, "%s/missing.csv", dir);
	TH_EQ(PAPI_encode_events(NULL, 0), PAPI_EINVAL);
	TH_EQ(PAPI_encode_events("", 0), PAPI_EINVAL);
	TH_EQ(PAPI_encode_events(missing, 0), PAPI_EINVAL);
	TH_EQ(PAPI_encode_events(other, 2), PAPI_EINVAL);
	/* a malformed line rejects the file, good lines before it included */
	TH_EQ(PAPI_encode_events(bad_kind, 1), PAPI_EINVAL);
	TH_EQ(PAPI_query_event(PAPI_CA_SNP), PAPI_ENOEVNT);
	TH_EQ(PAPI_encode_events(bad_sym, 1), PAPI_ENOEVNT);
	/* a block for a PMU this machine lacks does not apply */
	TH_EQ(PAPI_encode_events(other, 1), PAPI_OK);
	TH_EQ(PAPI_query_event(PAPI_CA_SNP), PAPI_ENOEVNT);
}

static int has_name(int code, int term, const char *what)
{
	PAPI_event_info_t info;

	if (PAPI_get_event_info(code, &info) != PAPI_OK || (int)info.count <= term)
		return 0;
	return strstr(info.name[term], what) != NULL;
}

/* Count the workload: the presets against their natives and ground truth. */
static void count(void)
{
	int es = PAPI_NULL, clk = 0, pf = 0;
	long long v[5], t0, t1;

	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	TH_EQ(PAPI_add_event(es, PAPI_CA_SNP), PAPI_OK);  /* task-clock */
	TH_EQ(PAPI_add_event(es, PAPI_CA_SHR), PAPI_OK);  /* 2 * page faults */
	TH_EQ(PAPI_add_event(es, PAPI_CA_CLN), PAPI_OK);  /* page faults - minor faults */
	TH_EQ(PAPI_event_name_to_code("perf::TASK-CLOCK", &clk), PAPI_OK);
	TH_EQ(PAPI_add_event(es, clk), PAPI_OK);
	TH_EQ(PAPI_event_name_to_code("perf::PAGE-FAULTS", &pf), PAPI_OK);
	TH_EQ(PAPI_add_event(es, pf), PAPI_OK);
	workload(); /* warm up: code and libraries paged in */
	th_clock_begin();
	t0 = thread_ns();
	TH_EQ(PAPI_start(es), PAPI_OK);
	workload();
	TH_EQ(PAPI_stop(es, v), PAPI_OK);
	t1 = thread_ns();
	TH_EQ(v[0], v[3]);                      /* the preset is the native */
	TH_NEAR_CLOCK(v[0], t1 - t0);           /* task-clock ns ~ thread CPU ns */
	TH_CHECK(v[4] >= NPAGES && v[4] <= NPAGES + 64);
	TH_EQ(v[1], 2 * v[4]);                  /* postfix N0|2|*| */
	TH_EQ(v[2], 0);                         /* anonymous pages: no major faults */
	TH_EQ(PAPI_cleanup_eventset(es), PAPI_OK);
	TH_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
}

static void replace_modes(void)
{
	char *faults = map_file("faults.csv",
		"CPU,perf\nPRESET,PAPI_CA_SNP,NOT_DERIVED,PAGE-FAULTS\nPRESET,PAPI_CA_INV,NOT_DERIVED,CONTEXT-SWITCHES\n");
	char *broken = map_file("broken.csv", "CPU,perf\nPRESET,PAPI_CA_SNP,NOT_DERIVED,perf::NO-SUCH-EVENT\n");
	int es = PAPI_NULL;
	long long v;

	/* replace=0: PAPI_CA_SNP keeps task-clock, PAPI_CA_INV is new */
	TH_EQ(PAPI_encode_events(faults, 0), PAPI_OK);
	TH_CHECK(has_name(PAPI_CA_SNP, 0, "TASK-CLOCK"));
	TH_EQ(PAPI_query_event(PAPI_CA_INV), PAPI_OK);
	/* replace=1: PAPI_CA_SNP now counts page faults */
	TH_EQ(PAPI_encode_events(faults, 1), PAPI_OK);
	TH_CHECK(has_name(PAPI_CA_SNP, 0, "PAGE-FAULTS"));
	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	TH_EQ(PAPI_add_event(es, PAPI_CA_SNP), PAPI_OK);
	TH_EQ(PAPI_start(es), PAPI_OK);
	workload();
	TH_EQ(PAPI_stop(es, &v), PAPI_OK);
	TH_CHECK(v >= NPAGES && v <= NPAGES + 64);
	TH_EQ(PAPI_cleanup_eventset(es), PAPI_OK);
	TH_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
	/* a row that does not resolve keeps the working mapping */
	TH_EQ(PAPI_encode_events(broken, 1), PAPI_OK);
	TH_CHECK(has_name(PAPI_CA_SNP, 0, "PAGE-FAULTS"));
}

int main(void)
{
	char *good;
	PAPI_event_info_t info;

	if (!mkdtemp(dir))
		TH_FATAL("cannot create a directory under /tmp");
	good = map_file("good.csv",
		"# test-only mappings onto perf software events\n"
		"CPU,perf\n"
		"PRESET,PAPI_CA_SNP,NOT_DERIVED,TASK-CLOCK\n"
		"PRESET,PAPI_CA_SHR,DERIVED_POSTFIX,N0|2|*|,perf::PAGE-FAULTS\n"
		"CPU,*\n"
		"PRESET,PAPI_CA_CLN,DERIVED_SUB,perf::PAGE-FAULTS,perf::MINOR-FAULTS\n");
	TH_EQ(PAPI_encode_events(good, 0), PAPI_ENOINIT);
	TH_EQ(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
	errors();
	TH_EQ(PAPI_encode_events(good, 0), PAPI_OK);
	TH_EQ(PAPI_query_event(PAPI_CA_SNP), PAPI_OK);
	TH_EQ(PAPI_get_event_info(PAPI_CA_SHR, &info), PAPI_OK);
	TH_EQ(info.count, 1);
	TH_CHECK(strcmp(info.derived, "DERIVED_POSTFIX") == 0 && strcmp(info.postfix, "N0|2|*|") == 0);
	TH_CHECK(strstr(info.note, "good.csv:4") != NULL);
	TH_CHECK(has_name(PAPI_CA_CLN, 1, "MINOR-FAULTS"));
	count();
	replace_modes();
	/* mappings from files last until PAPI_shutdown */
	PAPI_shutdown();
	TH_EQ(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
	TH_EQ(PAPI_query_event(PAPI_CA_SNP), PAPI_ENOEVNT);
	PAPI_shutdown();
	for (const char *n = "good.csv\0bad_kind.csv\0bad_sym.csv\0other.csv\0faults.csv\0broken.csv\0"; *n; n += strlen(n) + 1) {
		char p[300];

		snprintf(p, sizeof p, "%s/%s", dir, n);
		unlink(p);
	}
	rmdir(dir);
	return th_done();
}

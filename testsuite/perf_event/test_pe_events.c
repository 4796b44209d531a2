/*
 * test_pe_events.c - native events: enumeration, lookup canonicalisation,
 * names, descriptions; umask enumeration checked against libpfm4 itself.
 */
#include <string.h>

#include "pe_test.h"
#include <perfmon/pfmlib_perf_event.h>

static int enumerated(const char *want, int *total)
{
	char name[PAPI_HUGE_STR_LEN];
	uint64_t tok = 0;
	int found = 0, n = 0;

	for (int rc = pe->ntv_enum(&tok, PAPI_ENUM_FIRST); rc == PAPI_OK; rc = pe->ntv_enum(&tok, PAPI_ENUM_EVENTS)) {
		n++;
		if (pe->ntv_name(tok, name, sizeof name) == PAPI_OK && strcmp(name, want) == 0)
			found = 1;
	}
	*total = n;
	return found;
}

/* Every enumerated event looks up to itself; umask variants enumerate
 * exactly libpfm4's umask attributes. */
static void check_round_trip(void)
{
	char name[PAPI_HUGE_STR_LEN], canon[PAPI_HUGE_STR_LEN];
	uint64_t tok = 0, tok2, u;
	int bad = 0, umasks, want;
	pfm_event_info_t ei;
	pfm_event_attr_info_t ai;

	for (int rc = pe->ntv_enum(&tok, PAPI_ENUM_FIRST); rc == PAPI_OK; rc = pe->ntv_enum(&tok, PAPI_ENUM_EVENTS)) {
		if (pe->ntv_name(tok, name, sizeof name) != PAPI_OK ||
		    pe->ntv_lookup(name, &tok2, canon, sizeof canon) != PAPI_OK || strcmp(name, canon) != 0 ||
		    tok2 != tok) {
			printf("round trip failed for %s: %s\n", name, tly_err_detail());
			bad++;
		}
		memset(&ei, 0, sizeof ei);
		ei.size = sizeof ei;
		pfm_get_event_info((int)(tok & 0xffffffffu), PFM_OS_PERF_EVENT_EXT, &ei);
		want = 0;
		for (int a = 0; a < ei.nattrs; a++) {
			memset(&ai, 0, sizeof ai);
			ai.size = sizeof ai;
			if (pfm_get_event_attr_info(ei.idx, a, PFM_OS_PERF_EVENT_EXT, &ai) == PFM_SUCCESS &&
			    ai.type == PFM_ATTR_UMASK)
				want++;
		}
		umasks = 0;
		for (u = tok; pe->ntv_enum(&u, PAPI_NTV_ENUM_UMASKS) == PAPI_OK;)
			umasks++;
		if (umasks != want) {
			printf("%s: %d umasks enumerated, libpfm4 has %d\n", name, umasks, want);
			bad++;
		}
	}
	TH_EQ(bad, 0);
}

static const struct {
	int line;
	const char *in;
	int rc;
	const char *canon;
} lookups[] = {
	{ __LINE__, "TASK-CLOCK", PAPI_OK, "perf::TASK-CLOCK" },
	{ __LINE__, "perf::TASK-CLOCK", PAPI_OK, "perf::TASK-CLOCK" },
	{ __LINE__, "task-clock", PAPI_OK, "perf::TASK-CLOCK" },
	{ __LINE__, "PERF::Page-Faults", PAPI_OK, "perf::PAGE-FAULTS" },
	{ __LINE__, "perf::TASK-CLOCK:u=1", PAPI_OK, "perf::TASK-CLOCK:u=1" },
	{ __LINE__, "PAGE-FAULTS:u", PAPI_OK, "perf::PAGE-FAULTS:u" },
	{ __LINE__, "CONTEXT-SWITCHES", PAPI_OK, "perf::CONTEXT-SWITCHES" },
	{ __LINE__, "perf::PERF_COUNT_SW_CPU_CLOCK", PAPI_OK, "perf::PERF_COUNT_SW_CPU_CLOCK" },
	{ __LINE__, "no_such_event_xyz", PAPI_ENOEVNT, NULL },
	{ __LINE__, "perf::TASK-CLOCK:nosuchmod=1", PAPI_ENOEVNT, NULL },
	{ __LINE__, "nopmu::TASK-CLOCK", PAPI_ENOEVNT, NULL },
	{ __LINE__, "", PAPI_ENOEVNT, NULL },
};

static void check_lookups(void)
{
	char canon[PAPI_HUGE_STR_LEN], longname[PAPI_MAX_STR_LEN + 8];
	uint64_t tok;

	for (size_t i = 0; i < sizeof lookups / sizeof lookups[0]; i++) {
		th_at(lookups[i].line);
		tly_err_clear();
		TH_EQ(pe->ntv_lookup(lookups[i].in, &tok, canon, sizeof canon), lookups[i].rc);
		if (lookups[i].canon)
			TH_CHECK(strcmp(canon, lookups[i].canon) == 0);
		else
			TH_CHECK(strstr(tly_err_detail(), "libpfm4") != NULL);
	}
	th_at(0);
	memset(longname, 'A', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	TH_EQ(pe->ntv_lookup(longname, &tok, canon, sizeof canon), PAPI_EINVAL);
	TH_EQ(pe->ntv_lookup("TASK-CLOCK", &tok, canon, 8), PAPI_EBUF);
}

/* Hardware events: usable exactly when the kernel has a hardware PMU (and
 * libpfm4 names the generic ones); refused with the reason otherwise. */
static void check_hardware_names(void)
{
	char canon[PAPI_HUGE_STR_LEN];
	uint64_t tok;
	int rc = pe->ntv_lookup("perf::INSTRUCTIONS", &tok, canon, sizeof canon);

	if (tly_pe_probe_get()->hw_ok && !tly_pe_sw_active()) {
		TH_EQ(rc, PAPI_OK);
	} else if (tly_pe_probe_get()->hw_ok) {
		/* LIBPFM_FORCE_PMU pinned libpfm4 to one PMU: no generic names */
		TH_EQ(rc, PAPI_ENOEVNT);
		TH_CHECK(strstr(tly_err_detail(), "generic hardware event") != NULL);
	} else {
		TH_EQ(rc, PAPI_ENOEVNT);
		TH_CHECK(strstr(tly_err_detail(), "hardware PMU") != NULL);
	}
}

static void check_describe(void)
{
	PAPI_event_info_t ev;
	char canon[PAPI_HUGE_STR_LEN];
	uint64_t tok;

	TH_EQ(pe->ntv_lookup("TASK-CLOCK", &tok, canon, sizeof canon), PAPI_OK);
	memset(&ev, 0, sizeof ev);
	TH_EQ(pe->ntv_describe(tok, canon, &ev), PAPI_OK);
	TH_CHECK(strcmp(ev.symbol, "perf::TASK-CLOCK") == 0);
	TH_CHECK(strcmp(ev.units, "nsec") == 0);
	TH_CHECK(ev.long_descr[0] != '\0');
	TH_EQ(pe->ntv_lookup("perf::PAGE-FAULTS", &tok, canon, sizeof canon), PAPI_OK);
	memset(&ev, 0, sizeof ev);
	TH_EQ(pe->ntv_describe(tok, NULL, &ev), PAPI_OK);
	TH_CHECK(strcmp(ev.symbol, "perf::PAGE-FAULTS") == 0);
	TH_CHECK(strcmp(ev.units, "") == 0);
}

int main(void)
{
	PAPI_component_info_t info;
	int total = 0;
	uint64_t tok = 0;

	pe_test_init(&info);
	TH_CHECK(enumerated("perf::TASK-CLOCK", &total));
	TH_CHECK(enumerated("perf::PAGE-FAULTS", &total));
	TH_CHECK(enumerated("perf::CONTEXT-SWITCHES", &total));
	printf("%d events enumerated\n", total);
	TH_CHECK(total > 3);
	TH_EQ(pe->ntv_enum(&tok, 12345), PAPI_EINVAL);
	TH_EQ(pe->ntv_enum(NULL, PAPI_ENUM_FIRST), PAPI_EINVAL);
	check_round_trip();
	check_lookups();
	check_hardware_names();
	check_describe();
	pe->shutdown();
	return th_done();
}

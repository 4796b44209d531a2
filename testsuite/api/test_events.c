/*
 * test_events.c - event naming and enumeration:
 * PAPI_enum_event (presets: PAPI_ENUM_FIRST, PAPI_ENUM_EVENTS,
 * PAPI_PRESET_ENUM_AVAIL; natives: PAPI_NTV_ENUM_UMASKS),
 * PAPI_enum_cmp_event, PAPI_event_code_to_name / PAPI_event_name_to_code
 * round trips, PAPI_get_event_info, PAPI_query_event,
 * PAPI_query_named_event, PAPI_get_event_component.
 */
#include "api_util.h"

static int preset_count_nonzero;

/* Walk every preset; each must round-trip and describe itself. */
static void test_enum_presets(void)
{
	int code = PAPI_PRESET_MASK, n = 0, rc;
	char name[PAPI_MAX_STR_LEN];
	PAPI_event_info_t info;

	TH_EQ(PAPI_enum_event(&code, PAPI_ENUM_FIRST), PAPI_OK);
	TH_EQ(code, PAPI_PRESET_MASK | 0);
	do {
		int back = 0;
		n++;
		TH_CHECK(IS_PRESET(code));
		TH_EQ(PAPI_event_code_to_name(code, name), PAPI_OK);
		TH_CHECK(strncmp(name, "PAPI_", 5) == 0);
		TH_EQ(PAPI_event_name_to_code(name, &back), PAPI_OK);
		TH_EQ(back, code);
		memset(&info, 0xA5, sizeof info);
		TH_EQ(PAPI_get_event_info(code, &info), PAPI_OK);
		TH_EQ(info.event_code, (unsigned)code);
		TH_CHECK(strcmp(info.symbol, name) == 0);
		TH_CHECK(info.short_descr[0] != '\0');
		TH_CHECK(info.long_descr[0] != '\0');
		TH_CHECK(info.count <= PAPI_MAX_INFO_TERMS);
		/* availability: count of native terms > 0 iff the preset can be queried */
		rc = PAPI_query_event(code);
		if (info.count == 0)
			TH_EQ(rc, PAPI_ENOEVNT);
		else {
			TH_EQ(rc, PAPI_OK);
			preset_count_nonzero++;
		}
	} while (PAPI_enum_event(&code, PAPI_ENUM_EVENTS) == PAPI_OK);
	TH_EQ(n, PAPI_END_idx);
}

static void test_enum_presets_avail(void)
{
	int code = PAPI_PRESET_MASK, n = 0;
	PAPI_event_info_t info;

	/* AVAIL only visits presets that can be counted here */
	if (PAPI_enum_event(&code, PAPI_ENUM_FIRST) != PAPI_OK) {
		TH_CHECK(0);
		return;
	}
	if (PAPI_query_event(code) == PAPI_OK)
		n++;
	while (PAPI_enum_event(&code, PAPI_PRESET_ENUM_AVAIL) == PAPI_OK) {
		n++;
		TH_EQ(PAPI_query_event(code), PAPI_OK);
		TH_EQ(PAPI_get_event_info(code, &info), PAPI_OK);
		TH_CHECK(info.count > 0);
	}
	TH_EQ(n, preset_count_nonzero);
	/* no hardware PMU on this machine: the hardware presets are absent */
	static const int hw[] = { PAPI_TOT_CYC, PAPI_TOT_INS, PAPI_L1_DCM, PAPI_BR_MSP };
	for (size_t i = 0; i < sizeof hw / sizeof hw[0]; i++) {
		TH_EQ(PAPI_query_event(hw[i]), PAPI_ENOEVNT);
		TH_EQ(PAPI_get_event_info(hw[i], &info), PAPI_OK);
		TH_EQ(info.count, 0);
	}
}

static int name_has_prefix(const char *name, const char *base)
{
	size_t n = strlen(base);

	return strncmp(name, base, n) == 0 && name[n] == ':';
}

static void check_native(int code, int cidx)
{
	char name[PAPI_HUGE_STR_LEN];
	PAPI_event_info_t info;
	int back = 0;

	TH_CHECK(IS_NATIVE(code));
	TH_EQ(PAPI_event_code_to_name(code, name), PAPI_OK);
	TH_EQ(PAPI_event_name_to_code(name, &back), PAPI_OK);
	TH_EQ(back, code);
	TH_EQ(PAPI_get_event_info(code, &info), PAPI_OK);
	TH_EQ(info.event_code, (unsigned)code);
	TH_CHECK(strcmp(info.symbol, name) == 0);
	TH_EQ(info.component_index, cidx);
	TH_EQ(PAPI_get_event_component(code), cidx);
}

static void test_enum_natives(void)
{
	int code = PAPI_NATIVE_MASK, n = 0, cidx_code, umasks = 0;
	char base[PAPI_HUGE_STR_LEN], uname[PAPI_HUGE_STR_LEN];

	int n0 = 0, prev_cidx = 0, ncmp = PAPI_num_components(), total = 0;

	/* PAPI_enum_event walks every component's natives, component by
	 * component (PAPI_enum_cmp_event walks one) */
	TH_EQ(PAPI_enum_event(&code, PAPI_ENUM_FIRST), PAPI_OK);
	do {
		int c = PAPI_get_event_component(code);

		n++;
		TH_CHECK(c >= prev_cidx && c < ncmp);
		prev_cidx = c;
		n0 += c == 0;
		check_native(code, c);
		/* umask variants of this event all carry its name as prefix */
		if (PAPI_event_code_to_name(code, base) != PAPI_OK)
			continue;
		int u = code;
		while (PAPI_enum_event(&u, PAPI_NTV_ENUM_UMASKS) == PAPI_OK) {
			umasks++;
			TH_EQ(PAPI_event_code_to_name(u, uname), PAPI_OK);
			TH_CHECK(name_has_prefix(uname, base));
			check_native(u, c);
			if (umasks > 100000)
				break;
		}
	} while (PAPI_enum_event(&code, PAPI_ENUM_EVENTS) == PAPI_OK && n < 100000);
	const PAPI_component_info_t *ci = PAPI_get_component_info(0);
	TH_CHECK(ci != NULL);
	if (ci)
		TH_EQ(n0, ci->num_native_events);
	for (int c = 0; c < ncmp; c++) {
		const PAPI_component_info_t *cc = PAPI_get_component_info(c);

		if (cc && !cc->disabled)
			total += cc->num_native_events;
	}
	TH_EQ(n, total);
	TH_CHECK(n0 > 0);
	printf("natives: %d events, %d umask variants\n", n, umasks);

	/* PAPI_enum_cmp_event on component 0 visits the same first event */
	code = PAPI_NATIVE_MASK;
	cidx_code = PAPI_NATIVE_MASK;
	TH_EQ(PAPI_enum_event(&code, PAPI_ENUM_FIRST), PAPI_OK);
	TH_EQ(PAPI_enum_cmp_event(&cidx_code, PAPI_ENUM_FIRST, 0), PAPI_OK);
	TH_EQ(cidx_code, code);
	int m = 1;
	while (PAPI_enum_cmp_event(&cidx_code, PAPI_ENUM_EVENTS, 0) == PAPI_OK && m < 100000)
		m++;
	TH_EQ(m, n0);
	TH_EQ(PAPI_enum_cmp_event(&cidx_code, PAPI_ENUM_FIRST, PAPI_num_components()), PAPI_ENOCMP);
	TH_EQ(PAPI_enum_cmp_event(&cidx_code, PAPI_ENUM_FIRST, -1), PAPI_ENOCMP);
	TH_EQ(PAPI_enum_cmp_event(NULL, PAPI_ENUM_FIRST, 0), PAPI_EINVAL);
	TH_EQ(PAPI_enum_event(NULL, PAPI_ENUM_FIRST), PAPI_EINVAL);
}

static void test_named_software_events(void)
{
	static const struct { int line; const char *name; } rows[] = {
		{ __LINE__, "perf::TASK-CLOCK" },
		{ __LINE__, "perf::PAGE-FAULTS" },
		{ __LINE__, "perf::CONTEXT-SWITCHES" },
		{ __LINE__, "perf::CPU-CLOCK" },
		{ __LINE__, "perf::MINOR-FAULTS" },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		int code = 0, again = 0;
		char name[PAPI_HUGE_STR_LEN];
		th_at(rows[i].line);
		TH_EQ(PAPI_query_named_event(rows[i].name), PAPI_OK);
		TH_EQ(PAPI_event_name_to_code(rows[i].name, &code), PAPI_OK);
		TH_EQ(PAPI_query_event(code), PAPI_OK);
		check_native(code, 0);
		/* the same name always maps to the same code */
		TH_EQ(PAPI_event_name_to_code(rows[i].name, &again), PAPI_OK);
		TH_EQ(again, code);
		TH_EQ(PAPI_event_code_to_name(code, name), PAPI_OK);
		TH_CHECK(strstr(name, "perf") != NULL);
	}
	th_at(0);
}

static void test_bad_codes_and_names(void)
{
	char name[PAPI_HUGE_STR_LEN];
	PAPI_event_info_t info;
	int code = 0;

	/* want, or alt where the reference leaves a choice (0 and -1 are
	 * neither presets nor natives; PAPI itself answers ENOTPRESET or
	 * ENOEVNT depending on the function) */
	static const struct { int line; int code; int want, alt; } codes[] = {
		{ __LINE__, PAPI_PRESET_MASK | 200, PAPI_ENOTPRESET, PAPI_ENOTPRESET },
		{ __LINE__, PAPI_PRESET_MASK | 0x7FFF, PAPI_ENOTPRESET, PAPI_ENOTPRESET },
		{ __LINE__, PAPI_PRESET_MASK | PAPI_END_idx, PAPI_ENOTPRESET, PAPI_ENOEVNT },
		{ __LINE__, PAPI_NATIVE_MASK | 0xFFFFFF, PAPI_ENOEVNT, PAPI_ENOEVNT },
		{ __LINE__, 0, PAPI_ENOEVNT, PAPI_ENOTPRESET },
		{ __LINE__, -1, PAPI_ENOEVNT, PAPI_ENOTPRESET },
	};
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
		int r[3];
		th_at(codes[i].line);
		r[0] = PAPI_event_code_to_name(codes[i].code, name);
		r[1] = PAPI_get_event_info(codes[i].code, &info);
		r[2] = PAPI_query_event(codes[i].code);
		for (int k = 0; k < 3; k++) {
			if (r[k] != codes[i].alt)
				TH_EQ(r[k], codes[i].want);
		}
		TH_CHECK(PAPI_get_event_component(codes[i].code) < 0);
	}
	th_at(0);
	TH_EQ(PAPI_event_name_to_code("PAPI_NO_SUCH", &code), PAPI_ENOEVNT);
	TH_EQ(PAPI_event_name_to_code("perf::NO-SUCH-EVENT", &code), PAPI_ENOEVNT);
	int rc = PAPI_event_name_to_code("", &code);
	TH_CHECK(rc == PAPI_ENOEVNT || rc == PAPI_EINVAL);
	TH_EQ(PAPI_event_name_to_code(NULL, &code), PAPI_EINVAL);
	TH_EQ(PAPI_event_name_to_code("perf::TASK-CLOCK", NULL), PAPI_EINVAL);
	TH_EQ(PAPI_event_code_to_name(PAPI_TOT_CYC, NULL), PAPI_EINVAL);
	TH_EQ(PAPI_get_event_info(PAPI_TOT_CYC, NULL), PAPI_EINVAL);
	TH_EQ(PAPI_query_named_event("PAPI_TOT_CYC"), PAPI_ENOEVNT);
	TH_EQ(PAPI_query_named_event("perf::NO-SUCH-EVENT"), PAPI_ENOEVNT);
	TH_EQ(PAPI_query_named_event(NULL), PAPI_EINVAL);

	/* an unavailable preset still has a name and a description */
	TH_EQ(PAPI_event_code_to_name(PAPI_TOT_CYC, name), PAPI_OK);
	TH_CHECK(strcmp(name, "PAPI_TOT_CYC") == 0);
	TH_EQ(PAPI_event_name_to_code("PAPI_TOT_CYC", &code), PAPI_OK);
	TH_EQ(code, PAPI_TOT_CYC);
	TH_EQ(PAPI_get_event_info(PAPI_TOT_CYC, &info), PAPI_OK);
	TH_CHECK(strcmp(info.symbol, "PAPI_TOT_CYC") == 0);
	TH_EQ(info.count, 0);
}

int main(void)
{
	api_init();
	test_enum_presets();
	test_enum_presets_avail();
	test_enum_natives();
	test_named_software_events();
	test_bad_codes_and_names();
	PAPI_shutdown();
	return th_done();
}

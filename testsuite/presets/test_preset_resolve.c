/*
 * test_preset_resolve.c - preset resolution on this machine, through the
 * public API.  An available preset must say where its mapping came from and
 * list its natives; an unavailable one must say why, and where a map row
 * names natives for this CPU's PMU it lists them by name with code 0.
 * Where the kernel exposes no CPU PMU (no cpu/cpu_core/armv8 device in
 * /sys/bus/event_source/devices) every preset must be unavailable with the
 * note that no hardware PMU was found.
 */
#include <dirent.h>
#include <string.h>

#include "papi.h"
#include "tharness.h"

static int kernel_has_cpu_pmu(void)
{
	DIR *d = opendir("/sys/bus/event_source/devices");
	struct dirent *e;
	int found = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (!strcmp(e->d_name, "cpu") || !strncmp(e->d_name, "cpu_", 4) ||
		    !strncmp(e->d_name, "armv8", 5) || !strncmp(e->d_name, "armv7", 5))
			found = 1;
	closedir(d);
	return found;
}

int main(void)
{
	int hw = kernel_has_cpu_pmu(), navail = 0, code;

	TH_EQ(PAPI_query_event(PAPI_TOT_CYC), PAPI_ENOINIT);
	TH_EQ(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
	for (int i = 0; i < PAPI_END_idx; i++) {
		PAPI_event_info_t info;
		int q;

		code = i | PAPI_PRESET_MASK;
		q = PAPI_query_event(code);
		TH_EQ(PAPI_get_event_info(code, &info), PAPI_OK);
		TH_CHECK(info.note[0] != '\0');
		if (q == PAPI_OK) {
			navail++;
			TH_CHECK(info.count > 0);
			TH_CHECK(strstr(info.note, "mapped by maps/") != NULL);
			TH_CHECK(info.name[0][0] != '\0');
		} else {
			TH_CHECK(q == PAPI_ENOEVNT || q == PAPI_EPERM || q == PAPI_ECNFLCT);
			/* count 0 as in PAPI; a mapping that does not count here
			 * still names its natives, codes 0 */
			TH_EQ(info.count, 0u);
			for (unsigned t = 0; t < PAPI_MAX_INFO_TERMS && info.name[t][0]; t++) {
				TH_EQ(info.code[t], 0u);
				TH_CHECK(strstr(info.name[t], "::") != NULL);
			}
		}
		if (!hw) {
			TH_EQ(q, PAPI_ENOEVNT);
			TH_CHECK(strstr(info.note, "no hardware PMU") != NULL);
			if (!strstr(info.note, "no hardware PMU"))
				fprintf(stderr, "  %s: %s\n", info.symbol, info.note);
		}
	}
	printf("%d of %d presets available; PAPI_TOT_CYC: ", navail, (int)PAPI_END_idx);
	{
		PAPI_event_info_t info;

		PAPI_get_event_info(PAPI_TOT_CYC, &info);
		printf("%s\n", info.note);
	}
	/* out-of-range preset codes are not events */
	code = PAPI_query_event(PAPI_END_idx | PAPI_PRESET_MASK);
	TH_CHECK(code == PAPI_ENOEVNT || code == PAPI_ENOTPRESET);
	PAPI_shutdown();
	return th_done();
}

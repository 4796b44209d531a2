/*
 * test_nvtx_names.c - the NVTX name registries at scale: 200,000 strings
 * registered (beyond the old 65,536 limit), each found again with the
 * same handle and resolving to its own text; 3,000 domains, of which the
 * first 1,023 get handles of their own and a repeat gets the same one,
 * the others the default domain with ONE message for all of them (10,000
 * domains once printed 8,979 lines) and their number counted.
 */
#include "nvtx/nvtx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nv_stub_rt.h"
#include "tharness.h"

#define NSTR 200000
#define NDOM 3000

static void check_strings(void)
{
	static nvtxStringHandle_t h[NSTR];
	char text[32];
	int bad = 0;

	for (int i = 0; i < NSTR; i++) {
		snprintf(text, sizeof text, "string %d", i);
		h[i] = tly_nv_string_register(0, text);
		bad += h[i] != (nvtxStringHandle_t)(uintptr_t)(i + 1);
	}
	TH_EQ(bad, 0);
	for (int i = 0; i < NSTR; i++) {
		const char *s;

		snprintf(text, sizeof text, "string %d", i);
		bad += tly_nv_string_register(0, text) != h[i];   /* the same string: the same handle */
		s = tly_nv_string(h[i]);
		bad += !s || strcmp(s, text) != 0;
	}
	TH_EQ(bad, 0);
	TH_CHECK(tly_nv_string((nvtxStringHandle_t)(uintptr_t)(NSTR + 1)) == NULL);
	TH_CHECK(tly_nv_string(NULL) == NULL);
	TH_CHECK(tly_nv_string_register(0, NULL) == NULL);
}

static void check_domains(void)
{
	char name[32];
	int own = 0, dflt = 0, bad = 0;
	int logs0 = tly_nvstub_logs();

	for (int i = 0; i < NDOM; i++) {
		nvtxDomainHandle_t d;

		snprintf(name, sizeof name, "domain %d", i);
		d = tly_nv_domain_create(name);
		if (d) {
			own++;
			bad += tly_nv_domain_create(name) != d || strcmp(tly_nv_domain_name(tly_nv_domain_index(d)), name);
		} else {
			dflt++;
		}
	}
	TH_EQ(bad, 0);
	TH_EQ(own, TLY_NV_MAX_DOMAINS - 1);   /* index 0 is the default domain */
	TH_EQ(dflt, NDOM - (TLY_NV_MAX_DOMAINS - 1));
	TH_EQ(tly_nvstub_logs() - logs0, 1);
	TH_EQ(tly_nv_domains_over(), (long)dflt);
}

int main(void)
{
	check_strings();
	check_domains();
	return th_done();
}

/*
 * test_perror35.c - PAPI_perror in its PAPI 3.5 form, compiled with
 * TALLY_PAPI35_COMPAT: int PAPI_perror(int code, char *dest, int len)
 * fills dest with the text of code, always NUL-terminated, truncated to
 * len; with no buffer the text goes to stderr; an unknown code
 * is PAPI_EINVAL.
 */
#ifndef TALLY_PAPI35_COMPAT
#error "this test is built with TALLY_PAPI35_COMPAT"
#endif
#include "api_util.h"
#include "capture_util.h"

int main(void)
{
	char buf[PAPI_MAX_STR_LEN], out[4096];
	struct capture c;

	api_init();
	for (int code = 0; code > -PAPI_NUM_ERRORS; code--) {
		th_at(__LINE__);
		memset(buf, 'x', sizeof buf);
		TH_EQ(PAPI_perror(code, buf, (int)sizeof buf), PAPI_OK);
		TH_CHECK(memchr(buf, '\0', sizeof buf) != NULL);
		TH_CHECK(strcmp(buf, PAPI_strerror(code)) == 0);
	}
	th_at(0);

	/* truncated, still terminated */
	const char *full = PAPI_strerror(PAPI_ENOEVNT);
	memset(buf, 'x', sizeof buf);
	TH_EQ(PAPI_perror(PAPI_ENOEVNT, buf, 8), PAPI_OK);
	TH_EQ(strlen(buf), 7);
	TH_CHECK(strncmp(buf, full, 7) == 0);
	TH_EQ(buf[8], 'x'); /* nothing written past len */

	/* unknown codes */
	TH_EQ(PAPI_perror(1, buf, (int)sizeof buf), PAPI_EINVAL);
	TH_EQ(PAPI_perror(-PAPI_NUM_ERRORS, buf, (int)sizeof buf), PAPI_EINVAL);
	TH_EQ(PAPI_perror(-5000, buf, (int)sizeof buf), PAPI_EINVAL);

	/* no buffer: printed on stderr */
	capture_begin(&c);
	int rc = PAPI_perror(PAPI_EISRUN, NULL, 0);
	capture_end(&c, out, sizeof out);
	TH_EQ(rc, PAPI_OK);
	TH_CHECK(strstr(out, PAPI_strerror(PAPI_EISRUN)) != NULL);

	/* the PAPI 7 entry point stays reachable under its own name */
	capture_begin(&c);
	tally_papi7_perror("seven");
	capture_end(&c, out, sizeof out);
	TH_CHECK(strncmp(out, "seven", 5) == 0);
	PAPI_shutdown();
	return th_done();
}

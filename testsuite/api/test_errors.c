/*
 * test_errors.c - PAPI_strerror (every code 0..-27 has text, unknown codes
 * give NULL), PAPI_perror in its PAPI 7 form (prints "msg: <text of the
 * last error>" to stderr), and what PAPI_set_debug levels print.
 */
#include <limits.h>
#include "api_util.h"
#include "capture_util.h"

static void test_strerror(void)
{
	for (int code = 0; code > -PAPI_NUM_ERRORS; code--) {
		const char *s = PAPI_strerror(code);
		th_at(__LINE__);
		TH_CHECK(s != NULL && s[0] != '\0');
		if (!s)
			fprintf(stderr, "  no text for %d\n", code);
	}
	th_at(0);
	static const struct { int line; int code; } unknown[] = {
		{ __LINE__, 1 }, { __LINE__, 100 }, { __LINE__, -PAPI_NUM_ERRORS },
		{ __LINE__, -1000 }, { __LINE__, INT_MIN }, { __LINE__, INT_MAX },
	};
	for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
		th_at(unknown[i].line);
		TH_CHECK(PAPI_strerror(unknown[i].code) == NULL);
	}
	th_at(0);
	/* the 3.5 name is the same code */
	TH_CHECK(PAPI_strerror(PAPI_ESBSTR) == PAPI_strerror(PAPI_ECMP) ||
		 strcmp(PAPI_strerror(PAPI_ESBSTR), PAPI_strerror(PAPI_ECMP)) == 0);
	/* texts differ where the codes mean different things */
	TH_CHECK(strcmp(PAPI_strerror(PAPI_EINVAL), PAPI_strerror(PAPI_ENOEVNT)) != 0);
	TH_CHECK(strcmp(PAPI_strerror(PAPI_EISRUN), PAPI_strerror(PAPI_ENOTRUN)) != 0);
}

static void test_perror7(void)
{
	struct capture c;
	char out[4096];
	int es = PAPI_NULL;
	long long v[1];

	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	TH_EQ(PAPI_add_named_event(es, "perf::NO-SUCH-EVENT"), PAPI_ENOEVNT);
	capture_begin(&c);
	PAPI_perror("ctx-one");
	capture_end(&c, out, sizeof out);
	TH_CHECK(strncmp(out, "ctx-one: ", 9) == 0);
	TH_CHECK(strstr(out, PAPI_strerror(PAPI_ENOEVNT)) != NULL);
	TH_CHECK(strchr(out, '\n') != NULL);

	/* the last error replaces the previous one */
	TH_EQ(PAPI_stop(es, v), PAPI_ENOTRUN);
	capture_begin(&c);
	PAPI_perror("ctx-two");
	capture_end(&c, out, sizeof out);
	TH_CHECK(strncmp(out, "ctx-two: ", 9) == 0);
	TH_CHECK(strstr(out, PAPI_strerror(PAPI_ENOTRUN)) != NULL);
	TH_CHECK(strstr(out, PAPI_strerror(PAPI_ENOEVNT)) == NULL);

	/* without a message: only the error text */
	capture_begin(&c);
	PAPI_perror(NULL);
	capture_end(&c, out, sizeof out);
	TH_CHECK(strstr(out, PAPI_strerror(PAPI_ENOTRUN)) != NULL);
	TH_CHECK(strncmp(out, ": ", 2) != 0);
	capture_begin(&c);
	PAPI_perror("");
	capture_end(&c, out, sizeof out);
	TH_CHECK(strstr(out, PAPI_strerror(PAPI_ENOTRUN)) != NULL);
	TH_CHECK(strncmp(out, ": ", 2) != 0);
	TH_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
}

static void test_debug_levels_print(void)
{
	struct capture c;
	char out[4096];
	int es = PAPI_NULL;
	long long v[1];

	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	/* PAPI_QUIET: errors are returned, nothing printed */
	TH_EQ(PAPI_set_debug(PAPI_QUIET), PAPI_OK);
	capture_begin(&c);
	int rc = PAPI_stop(es, v);
	capture_end(&c, out, sizeof out);
	TH_EQ(rc, PAPI_ENOTRUN);
	TH_EQ(strlen(out), 0);
	/* PAPI_VERB_ECONT: errors are printed and the program continues */
	TH_EQ(PAPI_set_debug(PAPI_VERB_ECONT), PAPI_OK);
	capture_begin(&c);
	rc = PAPI_stop(es, v);
	capture_end(&c, out, sizeof out);
	TH_EQ(rc, PAPI_ENOTRUN);
	TH_CHECK(strlen(out) > 0);
	TH_EQ(PAPI_set_debug(PAPI_QUIET), PAPI_OK);
	TH_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
}

int main(void)
{
	/* strerror needs no library */
	test_strerror();
	api_init();
	test_strerror();
	test_perror7();
	test_debug_levels_print();
	PAPI_shutdown();
	return th_done();
}

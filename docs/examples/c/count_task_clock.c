/*
 * count_task_clock.c - count the CPU time of a loop with the PAPI API.
 *
 * A plain PAPI program: it builds against Tally with `-lpapi` (or the
 * Tally::papi CMake target) and counts the kernel's software event
 * perf::TASK-CLOCK, which every Linux machine has, VMs included.
 * Prints "perf::TASK-CLOCK <nanoseconds>"; exits 1 if nothing was counted.
 */
#include <papi.h>
#include <stdio.h>
#include <stdlib.h>

static void check(const char *what, int rc)
{
	if (rc != PAPI_OK) {
		fprintf(stderr, "%s: %s\n", what, PAPI_strerror(rc));
		exit(1);
	}
}

int main(void)
{
	int es = PAPI_NULL;
	long long ns = 0;
	volatile double x = 0;

	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
		fprintf(stderr, "PAPI_library_init failed\n");
		return 1;
	}
	check("PAPI_create_eventset", PAPI_create_eventset(&es));
	check("PAPI_add_named_event", PAPI_add_named_event(es, "perf::TASK-CLOCK"));
	check("PAPI_start", PAPI_start(es));
	for (int i = 0; i < 20000000; i++)
		x += i * 0.5;
	check("PAPI_stop", PAPI_stop(es, &ns));
	printf("perf::TASK-CLOCK %lld\n", ns);
	PAPI_cleanup_eventset(es);
	PAPI_destroy_eventset(&es);
	PAPI_shutdown();
	return ns > 0 ? 0 : 1;
}

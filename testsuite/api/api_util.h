/*
 * api_util.h - ground-truth workloads shared by the API conformance tests.
 *
 *   touch_fresh_pages(n)   map n fresh anonymous pages (no huge pages) and
 *                          write one byte to each: exactly n minor faults
 *   api_init()             PAPI_library_init or exit with a failure
 * (thread CPU time and busy loops: th_thread_cpu_ns, th_spin_cpu_ns of
 * the harness, th_clock.h)
 */
#ifndef TALLY_API_UTIL_H
#define TALLY_API_UTIL_H

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "papi.h"
#include <sys/syscall.h>
#include <unistd.h>
#include "tharness.h"

#define API_TASK_CLOCK "perf::TASK-CLOCK"
#define API_PAGE_FAULTS "perf::PAGE-FAULTS"

/* Touch n fresh pages; returns n, or -1 when the mapping failed. */
TH_UNINSTRUMENTED static inline long touch_fresh_pages(long n)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)(n * pg);
	/* Raw syscalls: sanitizer interceptors of mmap/munmap clear shadow
	 * memory, which adds faults of their own to the count. */
	char *p = (char *)syscall(SYS_mmap, NULL, len, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0L);

	if (p == MAP_FAILED)
		return -1;
	/* Huge pages would turn 512 faults into one. */
	syscall(SYS_madvise, p, len, MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		((volatile char *)p)[i * pg] = (char)i;
	syscall(SYS_munmap, p, len);
	return n;
}

static inline void api_init(void)
{
	int rc = PAPI_library_init(PAPI_VER_CURRENT);

	if (rc != PAPI_VER_CURRENT) {
		fprintf(stderr, "PAPI_library_init: %d (%s)\n", rc,
			PAPI_strerror(rc) ? PAPI_strerror(rc) : "?");
		exit(1);
	}
}

/* A set holding the given natives, stopped.  Exits on failure. */
static inline int api_set_of(const char *const *names, int n)
{
	int es = PAPI_NULL;
	int rc = PAPI_create_eventset(&es);

	if (rc != PAPI_OK) {
		fprintf(stderr, "PAPI_create_eventset: %d\n", rc);
		exit(1);
	}
	for (int i = 0; i < n; i++) {
		rc = PAPI_add_named_event(es, names[i]);
		if (rc != PAPI_OK) {
			fprintf(stderr, "PAPI_add_named_event(%s): %d\n", names[i], rc);
			exit(1);
		}
	}
	return es;
}

#endif /* TALLY_API_UTIL_H */

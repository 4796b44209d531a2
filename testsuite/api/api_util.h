/*
 * api_util.h - ground-truth workloads shared by the API conformance tests.
 *
 *   touch_fresh_pages(n)   map n fresh anonymous pages (no huge pages) and
 *                          write one byte to each: exactly n minor faults
 *   thread_cpu_ns()        CLOCK_THREAD_CPUTIME_ID of the caller, in ns
 *   busy_cpu_ns(ns)        spin until the caller used ns of CPU time
 *   api_init()             PAPI_library_init or exit with a failure
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

static inline long long thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Spin until this thread has used `ns` more nanoseconds of CPU. */
static inline void busy_cpu_ns(long long ns)
{
	volatile uint64_t x = 1;
	long long end = thread_cpu_ns() + ns;

	while (thread_cpu_ns() < end)
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
}

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

/*
 * api_util.h - ground-truth workloads shared by the API conformance tests.
 *
 *   touch_fresh_pages(n)   map n fresh anonymous pages (no huge pages) and
 *                          write one byte to each: exactly n minor faults
 *   map_fresh_pages(n), touch_pages(p, n), unmap_pages(p, n)
 *                          the same in three steps, so that a measured
 *                          window holds only the faults
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

/* Map n fresh anonymous pages, untouched (no fault yet); NULL when the
 * mapping failed.  Raw syscalls: sanitizer interceptors of mmap/munmap
 * clear shadow memory, which adds faults of their own to the count. */
TH_UNINSTRUMENTED static inline char *map_fresh_pages(long n)
{
	size_t len = (size_t)(n * sysconf(_SC_PAGESIZE));
	char *p = (char *)syscall(SYS_mmap, NULL, len, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0L);

	if (p == MAP_FAILED)
		return NULL;
	/* Huge pages would turn 512 faults into one. */
	syscall(SYS_madvise, p, len, MADV_NOHUGEPAGE);
	return p;
}

/* Write one byte to each of the n pages at p: n minor faults if fresh. */
TH_UNINSTRUMENTED static inline void touch_pages(char *p, long n)
{
	long pg = sysconf(_SC_PAGESIZE);

	for (long i = 0; i < n; i++)
		((volatile char *)p)[i * pg] = (char)i;
}

TH_UNINSTRUMENTED static inline void unmap_pages(char *p, long n)
{
	syscall(SYS_munmap, p, (size_t)(n * sysconf(_SC_PAGESIZE)));
}

/* Touch n fresh pages; returns n, or -1 when the mapping failed. */
TH_UNINSTRUMENTED static inline long touch_fresh_pages(long n)
{
	char *p = map_fresh_pages(n);

	if (p == NULL)
		return -1;
	touch_pages(p, n);
	unmap_pages(p, n);
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

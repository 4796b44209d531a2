/* bench_runtime_mpi.c - 0-byte ping-pong between ranks 0 and 1, run under
 * tally-run (default settings: MPI calls recorded, MPI regions carry time
 * only, counters not read at MPI calls).  The same process times the
 * uninstrumented path (PMPI_Send/PMPI_Recv, which the wrappers do not
 * intercept) and the measured one (MPI_Send/MPI_Recv), in alternating
 * blocks of ITERS round trips; the overhead per call is the median over the
 * block pairs of the difference, divided by the 4 calls on a round trip's
 * critical path (a paired median: this VM's scheduling noise is larger than
 * the effect).
 *
 * Then the wrapper alone, without the network's noise: MPI_Test on
 * MPI_REQUEST_NULL (wrapped, recorded, a region of its own) against
 * PMPI_Test, in alternating blocks, and for scale the cost of one read of
 * the clocks a wrapper could use (it reads one twice per call).
 *
 * Fails (rank 0's exit status) when the measured round trip's median is
 * over 3x the uninstrumented one, or an MPI call's overhead (the paired
 * median above) or the wrapper alone costs more than MAX_WRAP_NS per call
 * (20x the 50 ns target: a wrapper that takes a lock, allocates or writes
 * each call; measured on the busy 2-core VM: round trip 668 / 970 ns,
 * 67 ns per call, wrapper alone 77 ns). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "th_clock.h"

#define ITERS 1000
#define BLOCKS 301
#define MAX_RATIO 3.0
#define MAX_WRAP_NS 1000.0

typedef int (*send_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*recv_fn)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);

static double pingpong(int rank, send_fn s, recv_fn r)
{
	char b = 0;
	double t0;

	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	for (int i = 0; i < ITERS; i++) {
		if (rank == 0) {
			s(&b, 0, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
			r(&b, 0, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else if (rank == 1) {
			r(&b, 0, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			s(&b, 0, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
		}
	}
	return (MPI_Wtime() - t0) / ITERS * 1e9;   /* ns per round trip */
}

typedef int (*test_fn)(MPI_Request *, int *, MPI_Status *);

static double tests(test_fn f)
{
	MPI_Request r = MPI_REQUEST_NULL;
	double t0 = th_now_ns();
	int flag;

	for (int i = 0; i < ITERS * 10; i++)
		f(&r, &flag, MPI_STATUS_IGNORE);
	return (th_now_ns() - t0) / (ITERS * 10);
}

/* ns per read: CLOCK_MONOTONIC through the vDSO, and the CPU counter */
static volatile uint64_t sink;   /* keeps the reads */

static void clock_costs(double *mono, double *cnt)
{
	double t0 = th_now_ns();

	for (int i = 0; i < ITERS * 100; i++)
		sink += (uint64_t)th_now_ns();
	*mono = (th_now_ns() - t0) / (ITERS * 100);
	t0 = th_now_ns();
	for (int i = 0; i < ITERS * 100; i++) {
#if defined(__x86_64__)
		uint32_t lo, hi;

		__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
		sink += lo;
#elif defined(__aarch64__)
		uint64_t v;

		__asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v) : : "memory");
		sink += v;
#endif
	}
	*cnt = (th_now_ns() - t0) / (ITERS * 100);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int rank, bad = 0;
	static double d[BLOCKS], p[BLOCKS], m[BLOCKS];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	pingpong(rank, PMPI_Send, PMPI_Recv);      /* warm-up */
	pingpong(rank, MPI_Send, MPI_Recv);
	for (int b = 0; b < BLOCKS; b++) {
		p[b] = pingpong(rank, PMPI_Send, PMPI_Recv);
		m[b] = pingpong(rank, MPI_Send, MPI_Recv);
		d[b] = m[b] - p[b];
	}
	qsort(d, BLOCKS, sizeof *d, cmp);
	qsort(p, BLOCKS, sizeof *p, cmp);
	qsort(m, BLOCKS, sizeof *m, cmp);
	if (rank == 0)
		printf("0-byte ping-pong round trip (median of %d blocks): uninstrumented %.0f ns, measured "
		       "%.0f ns; overhead per MPI call %.1f ns (paired median; quartiles %.1f .. %.1f; "
		       "target <= 50 ns)\n", BLOCKS, p[BLOCKS / 2], m[BLOCKS / 2], d[BLOCKS / 2] / 4,
		       d[BLOCKS / 4] / 4, d[3 * BLOCKS / 4] / 4);
	if (rank == 0 && m[BLOCKS / 2] > MAX_RATIO * p[BLOCKS / 2]) {
		printf("FAIL: measured round trip x%.2f of the uninstrumented one (at most x%.1f)\n",
		       m[BLOCKS / 2] / p[BLOCKS / 2], MAX_RATIO);
		bad = 1;
	}
	if (rank == 0 && d[BLOCKS / 2] / 4 > MAX_WRAP_NS) {
		printf("FAIL: overhead per MPI call %.1f ns (at most %.0f)\n", d[BLOCKS / 2] / 4, MAX_WRAP_NS);
		bad = 1;
	}
	if (rank == 0) {
		double mono, cnt;

		tests(PMPI_Test);
		tests(MPI_Test);
		for (int b = 0; b < BLOCKS; b++) {
			p[b] = tests(PMPI_Test);
			m[b] = tests(MPI_Test);
			d[b] = m[b] - p[b];
		}
		qsort(d, BLOCKS, sizeof *d, cmp);
		clock_costs(&mono, &cnt);
		printf("wrapper alone (MPI_Test on MPI_REQUEST_NULL vs PMPI_Test): %.1f ns per call (paired "
		       "median; quartiles %.1f .. %.1f); one read of CLOCK_MONOTONIC %.1f ns, of the CPU "
		       "counter %.1f ns\n", d[BLOCKS / 2], d[BLOCKS / 4], d[3 * BLOCKS / 4], mono, cnt);
		if (d[BLOCKS / 2] > MAX_WRAP_NS) {
			printf("FAIL: the wrapper alone costs %.1f ns per call (at most %.0f)\n",
			       d[BLOCKS / 2], MAX_WRAP_NS);
			bad = 1;
		}
		printf("%s\n", bad ? "FAILED" : "ok: within the bounds");
	}
	MPI_Finalize();
	return bad;
}

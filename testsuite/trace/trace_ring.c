/*
 * trace_ring.c - a ring of MPI ranks for the trace tests: every kind of
 * message the trace draws (Send/Recv, Sendrecv, Isend/Irecv completed by
 * Wait, Waitall, Waitany, Waitsome, Test and Testsome, a
 * sub-communicator's messages, a communicator freed with its requests
 * pending, a send freed by MPI_Request_free each round) and
 * collectives with and without a root, inside user regions.
 * Usage: mpirun -np 4 trace_ring ROUNDS [FLOOD]
 *   FLOOD: then FLOOD receives and FLOOD sends pending at once per rank
 *   (tag 9999; more than the trace follows: its dropped count is tested)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "tally.h"

static void round_trip(int rank, int n, MPI_Comm comm, int tag, int len)
{
	int right = (rank + 1) % n, left = (rank + n - 1) % n;
	double *a = calloc((size_t)len, sizeof *a), *b = calloc((size_t)len, sizeof *b);
	MPI_Request rq[2];
	int idx, flag = 0, done = 0, got, which[2];

	if (rank % 2 == 0) {
		MPI_Send(a, len, MPI_DOUBLE, right, tag, comm);
		MPI_Recv(b, len, MPI_DOUBLE, left, tag, comm, MPI_STATUS_IGNORE);
	} else {
		MPI_Recv(b, len, MPI_DOUBLE, left, tag, comm, MPI_STATUS_IGNORE);
		MPI_Send(a, len, MPI_DOUBLE, right, tag, comm);
	}
	MPI_Sendrecv(a, len, MPI_DOUBLE, right, tag + 1, b, len, MPI_DOUBLE, left, tag + 1, comm, MPI_STATUS_IGNORE);
	MPI_Irecv(b, len, MPI_DOUBLE, MPI_ANY_SOURCE, tag + 2, comm, &rq[0]);
	MPI_Isend(a, len, MPI_DOUBLE, right, tag + 2, comm, &rq[1]);
	MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
	MPI_Irecv(b, len, MPI_DOUBLE, left, tag + 3, comm, &rq[0]);
	MPI_Isend(a, len, MPI_DOUBLE, right, tag + 3, comm, &rq[1]);
	MPI_Waitany(2, rq, &idx, MPI_STATUS_IGNORE);
	MPI_Wait(&rq[1 - idx], MPI_STATUS_IGNORE);
	MPI_Irecv(b, len, MPI_DOUBLE, left, tag + 4, comm, &rq[0]);
	MPI_Send(a, len, MPI_DOUBLE, right, tag + 4, comm);
	while (!flag)
		MPI_Test(&rq[0], &flag, MPI_STATUS_IGNORE);
	/* some-completions: every request completed by Waitsome, then Testsome */
	MPI_Irecv(b, len, MPI_DOUBLE, left, tag + 5, comm, &rq[0]);
	MPI_Isend(a, len, MPI_DOUBLE, right, tag + 5, comm, &rq[1]);
	for (done = 0; done < 2; done += got)
		MPI_Waitsome(2, rq, &got, which, MPI_STATUSES_IGNORE);
	MPI_Irecv(b, len, MPI_DOUBLE, MPI_ANY_SOURCE, tag + 6, comm, &rq[0]);
	MPI_Isend(a, len, MPI_DOUBLE, right, tag + 6, comm, &rq[1]);
	for (done = 0; done < 2; done += got == MPI_UNDEFINED ? 0 : got)
		MPI_Testsome(2, rq, &got, which, MPI_STATUSES_IGNORE);
	free(a);
	free(b);
}

int main(int argc, char **argv)
{
	int rank, n, rounds = argc > 1 ? atoi(argv[1]) : 10;
	double x = 1.0, y;
	MPI_Comm half;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	/* persistent requests, started every round: each start a message */
	double ps[4] = { 1, 2, 3, 4 }, pr[4];
	MPI_Request preq[2];

	MPI_Send_init(ps, 4, MPI_DOUBLE, (rank + 1) % n, 7777, MPI_COMM_WORLD, &preq[0]);
	MPI_Recv_init(pr, 4, MPI_DOUBLE, (rank + n - 1) % n, 7777, MPI_COMM_WORLD, &preq[1]);
	for (int r = 0; r < rounds; r++) {
		int hr, hn;

		tally_region_begin("round");
		round_trip(rank, n, MPI_COMM_WORLD, 10 * r, 16 + r);
		MPI_Comm_rank(half, &hr);
		MPI_Comm_size(half, &hn);
		if (hn > 1)
			round_trip(hr, hn, half, 10 * r + 5, 8);
		{   /* a send freed at once (MPI_Request_free): its message matched, its
			 * completion unseen and counted dropped; the handle comes back */
			static int fire[1024];
			MPI_Request fr1;
			int got1;

			fire[r % 1024] = r;
			MPI_Isend(&fire[r % 1024], 1, MPI_INT, (rank + 1) % n, 6666, MPI_COMM_WORLD, &fr1);
			MPI_Request_free(&fr1);
			MPI_Recv(&got1, 1, MPI_INT, (rank + n - 1) % n, 6666, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		}
		MPI_Bcast(&x, 1, MPI_DOUBLE, r % n, MPI_COMM_WORLD);
		MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		MPI_Reduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, 0, half);
		MPI_Barrier(MPI_COMM_WORLD);
		{   /* non-blocking collectives: recorded where they complete */
			MPI_Request cr[2];
			double z = 0.0;

			MPI_Iallreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &cr[0]);
			MPI_Wait(&cr[0], MPI_STATUS_IGNORE);
			MPI_Ibcast(&z, 1, MPI_DOUBLE, 0, half, &cr[0]);
			MPI_Ibarrier(MPI_COMM_WORLD, &cr[1]);
			MPI_Waitall(2, cr, MPI_STATUSES_IGNORE);
		}
		MPI_Startall(2, preq);
		MPI_Waitall(2, preq, MPI_STATUSES_IGNORE);
		{   /* a communicator freed while its requests are pending (MPI lets them
			 * complete; the communicator goes with the last): ranks reversed, so
			 * the receive's source is translated to the world's through its group */
			MPI_Comm rev;
			MPI_Request fq[2];
			int rr, v = rank, w = -1;

			MPI_Comm_split(MPI_COMM_WORLD, 0, n - rank, &rev);
			MPI_Comm_rank(rev, &rr);
			MPI_Irecv(&w, 1, MPI_INT, MPI_ANY_SOURCE, 8888, rev, &fq[0]);
			MPI_Isend(&v, 1, MPI_INT, (rr + 1) % n, 8888, rev, &fq[1]);
			MPI_Comm_free(&rev);
			MPI_Waitall(2, fq, MPI_STATUSES_IGNORE);
		}
		tally_region_end("round");
	}
	if (argc > 2 && atoi(argv[2]) > 0) {   /* many requests pending at once */
		int k = atoi(argv[2]);
		MPI_Request *fr = malloc(2 * (size_t)k * sizeof *fr);
		double *fb = calloc(2 * (size_t)k, sizeof *fb);

		for (int i = 0; i < k; i++)
			MPI_Irecv(&fb[i], 1, MPI_DOUBLE, (rank + n - 1) % n, 9999, MPI_COMM_WORLD, &fr[i]);
		for (int i = 0; i < k; i++)
			MPI_Isend(&fb[k + i], 1, MPI_DOUBLE, (rank + 1) % n, 9999, MPI_COMM_WORLD, &fr[k + i]);
		MPI_Waitall(2 * k, fr, MPI_STATUSES_IGNORE);
		free(fr);
		free(fb);
	}
	MPI_Request_free(&preq[0]);
	MPI_Request_free(&preq[1]);
	MPI_Comm_free(&half);
	MPI_Finalize();
	return 0;
}

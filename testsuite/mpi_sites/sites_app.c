/* sites_app.c - MPI calls from known call sites, counted by the program
 * itself: MPI_Allreduce from site_a (A calls of 1 double) and site_b (B
 * calls of 4 doubles), MPI_Bcast from one line of helper() that caller_x
 * (X times) and caller_y (Y times) call.  Each call line carries a SITE
 * marker (and each call of helper a CALL marker) the checker reads; each
 * rank writes its own counts to sites_app.rank<r>.txt. */
#include <mpi.h>
#include <stdio.h>

static long n_a, n_b, n_x, n_y;

static __attribute__((noinline)) void site_a(double *v)
{
	MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* SITE site_a */
	n_a++;
}

static __attribute__((noinline)) void site_b(double *v)
{
	MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* SITE site_b */
	n_b++;
}

static __attribute__((noinline)) void helper(int *v)
{
	MPI_Bcast(v, 2, MPI_INT, 0, MPI_COMM_WORLD); /* SITE helper */
	__asm__ __volatile__("" ::: "memory");   /* no tail call */
}

static __attribute__((noinline)) void caller_x(int *v)
{
	helper(v); /* CALL caller_x */
	n_x++;
}

static __attribute__((noinline)) void caller_y(int *v)
{
	helper(v); /* CALL caller_y */
	n_y++;
}

int main(int argc, char **argv)
{
	double v[4] = { 1, 2, 3, 4 };
	int w[2] = { 5, 6 }, rank;
	char name[64];
	FILE *f;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (int i = 0; i < 3; i++)
		site_a(v); /* CALL main_a */
	for (int i = 0; i < 5; i++)
		site_b(v); /* CALL main_b */
	for (int i = 0; i < 2; i++)
		caller_x(w);
	for (int i = 0; i < 4; i++)
		caller_y(w);
	snprintf(name, sizeof name, "sites_app.rank%d.txt", rank);
	if ((f = fopen(name, "w"))) {
		fprintf(f, "site_a %ld\nsite_b %ld\ncaller_x %ld\ncaller_y %ld\n", n_a, n_b, n_x, n_y);
		fclose(f);
	}
	MPI_Finalize();
	return 0;
}

/* h5lib_app.c - where HDF5 is loaded (test rt_h5lib, output/h5_lib.h).
 *
 * Built with MPI (h5lib_mpi): after MPI_Init, neither libhdf5 nor Tally's
 * writer library libtally-h5.so is mapped in this process, while
 * libtally-preload.so is; after MPI_Finalize (where the job file is
 * written) both are in the ranks that wrote HDF5: rank 0 alone in a small
 * job (its rows gathered to rank 0, output/out_job.c), every rank when
 * the file is written in parallel (H5LIB_ALL_WRITE=1: the script sets
 * TALLY_OUTPUT_GATHER=1).  Built without (h5lib_serial): a program without MPI has the writer
 * library and HDF5 from start-up on (HDF5 initialised on the main thread).
 * Prints one line per check; exit 1 at the first that fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef H5LIB_MPI
#include <mpi.h>
#endif

/* 1 when a mapping of this process names `what` (/proc/self/maps). */
static int mapped(const char *what)
{
	char line[4096];
	int found = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof line, f))
		found = strstr(line, what) != NULL;
	fclose(f);
	return found;
}

static int expect(const char *when, const char *what, int want)
{
	int got = mapped(what);

	printf("%s: %s %s\n", when, what, got ? "mapped" : "not mapped");
	if (got != want) {
		printf("FAILED: %s should %sbe mapped %s\n", what, want ? "" : "not ", when);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int bad = expect("at start", "libtally-preload.so", 1);

#ifdef H5LIB_MPI
	{
		const char *all = getenv("H5LIB_ALL_WRITE");
		int rank, wrote;

		MPI_Init(&argc, &argv);
		MPI_Comm_rank(MPI_COMM_WORLD, &rank);
		wrote = rank == 0 || (all && !strcmp(all, "1"));
		bad |= expect("after MPI_Init", "libhdf5", 0);
		bad |= expect("after MPI_Init", "libtally-h5.so", 0);
		MPI_Finalize();
		printf("rank %d:\n", rank);
		bad |= expect("after MPI_Finalize", "libtally-h5.so", wrote);
		bad |= expect("after MPI_Finalize", "libhdf5", wrote);
	}
#else
	(void)argc;
	(void)argv;
	bad |= expect("in main", "libtally-h5.so", 1);
	bad |= expect("in main", "libhdf5", 1);
#endif
	return bad;
}

/*
 * safety_app.c - a program for the runtime to measure: some work, then it
 * exits with the status given as argv[1] (the runtime must never change
 * it).  Built with SAFETY_MPI: the same between MPI_Init and MPI_Finalize;
 * argv[2] "nofinalize": exit() without MPI_Finalize (per-rank partial files);
 * "hl": the work is a PAPI_hl region.  $SAFETY_CHDIR: the directory it
 * changes to before MPI_Finalize (run_found_paths.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <papi.h>
#ifdef SAFETY_MPI
#include <mpi.h>
#endif

int main(int argc, char **argv)
{
	volatile double x = 0;
	int status = argc > 1 ? atoi(argv[1]) : 0;
	const char *region = getenv("SAFETY_REGION") ? getenv("SAFETY_REGION") : "work";   /* any bytes */

#ifdef SAFETY_MPI
	MPI_Init(&argc, &argv);
#endif
	if (argc > 2 && !strcmp(argv[2], "hl"))   /* a PAPI_hl region: its own summary file */
		PAPI_hl_region_begin(region);
	for (int i = 0; i < 2000000; i++)
		x += i * 0.5;
	if (argc > 2 && !strcmp(argv[2], "hl"))
		PAPI_hl_region_end(region);
	if (getenv("SAFETY_CHDIR") && chdir(getenv("SAFETY_CHDIR")) != 0)   /* before the job's end */
		perror("chdir");
#ifdef SAFETY_MPI
	if (argc > 2 && !strcmp(argv[2], "nofinalize"))
		exit(status);
	MPI_Finalize();
#endif
	printf("app done (%g), exit %d\n", (double)x, status);
	return status;
}

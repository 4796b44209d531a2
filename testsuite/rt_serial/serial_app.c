/* serial_app.c - a program without MPI, measured by the runtime at exit.
 * OUTER visits of "outer", each with INNER visits of "inner", each holding
 * one OpenMP parallel region in which every thread enters "work" once.
 * The checker (check_serial.py) knows these numbers. */
#include <omp.h>
#include <stdio.h>
#include "tally.h"

#define OUTER 4
#define INNER 3

static double work(void)
{
	double s = 0;

#pragma omp parallel reduction(+ : s)
	{
		tally_region_begin("work");
		for (int i = 0; i < 100000; i++)
			s += i * 0.25;
		tally_region_end("work");
	}
	return s;
}

int main(void)
{
	double s = 0;

	for (int o = 0; o < OUTER; o++) {
		tally_region_begin("outer");
		for (int i = 0; i < INNER; i++) {
			tally_region_begin("inner");
			s += work();
			tally_region_end("inner");
		}
		tally_region_end("outer");
	}
	printf("threads %d sum %.0f\n", omp_get_max_threads(), s);
	return 0;
}

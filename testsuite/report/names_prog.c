/*
 * names_prog.c - OpenMP regions inside functions inlined three deep
 * (report test 'names'): each region's name carries the whole inline
 * chain ("omp parallel @ kernel_body (names_prog.c:N) in stage_... in
 * driver_... in main"), one body inlined into two stages gives two
 * regions whose innermost frames are the same, and the stages also run
 * inside a user region.  Built -O2 -g.
 */
#include <math.h>
#include <stdio.h>

#include "tally.h"

static inline __attribute__((always_inline)) double kernel_body(int n, double scale)
{
	double s = 0.0;

#pragma omp parallel for reduction(+ : s)
	for (int i = 0; i < n; i++)
		s += sqrt((double)i * scale);
	return s;
}

static inline __attribute__((always_inline)) double stage_integrate_the_momentum_equations(int n)
{
	return kernel_body(n, 1.0) + 1.0;
}

static inline __attribute__((always_inline)) double stage_apply_the_boundary_conditions(int n)
{
	return kernel_body(n / 2, 2.0) - 1.0;
}

static __attribute__((noinline)) double driver_advance_one_time_step_of_the_simulation(int n)
{
	return stage_integrate_the_momentum_equations(n) + stage_apply_the_boundary_conditions(n);
}

int main(void)
{
	double s = 0.0;

	for (int k = 0; k < 6; k++) {
		tally_region_begin("time step");
		s += driver_advance_one_time_step_of_the_simulation(200000 + k);
		tally_region_end("time step");
	}
	printf("%.6g\n", s);
	return s > 0.0 ? 0 : 1;
}

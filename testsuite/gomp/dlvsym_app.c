/* dlvsym_app.c - PARALLELS parallel regions of 2 threads (GCC OpenMP) for
 * test gomp_dlvsym_chain. */
#include <stdio.h>

#define PARALLELS 25

int main(void)
{
	double s = 0;

	for (int k = 0; k < PARALLELS; k++) {
#pragma omp parallel num_threads(2) reduction(+ : s)
		s += k * 0.5;
	}
	printf("%d %g\n", PARALLELS, s);
	return 0;
}

/* omp_clang.c - built by clang -fopenmp -g at test time (test
 * omp_clang_names): two parallel regions on LLVM's libomp, measured by
 * OMPT, whose names must give file:line as addr2line does. */
#include <stdio.h>

static double scale(int n)
{
	double s = 0;

#pragma omp parallel for reduction(+ : s)
	for (int i = 0; i < n; i++)
		s += i * 0.5;
	return s;
}

int main(void)
{
	double t = 0;

	for (int k = 0; k < 4; k++)
		t += scale(10000);
#pragma omp parallel reduction(+ : t)
	t += 1;
	printf("%g\n", t);
	return 0;
}

/* hot_lib.c - the shared-library hot spot of hot_app (30% of its work). */
double hot_lib(long n, double x);

__attribute__((visibility("default"))) double hot_lib(long n, double x)
{
	for (long i = 0; i < n; i++) {   /* HOT_LIB_LOOP */
		x = x * 1.0000001 + 1e-9;     /* HOT_LIB_BODY */
		x = x > 2.0 ? x - 1.0 : x;
	}
	return x;
}

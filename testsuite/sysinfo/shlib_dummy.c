/*
 * shlib_dummy.c - a library test_shlib_info dlopens and dlcloses: a
 * function for the text range, an initialised array for the data range
 * and a zeroed array large enough to need its own anonymous pages (bss).
 */
#define DUMMY_API __attribute__((visibility("default"))) /* the build hides by default */

DUMMY_API int shlib_dummy_data[4] = { 1, 2, 3, 4 };
DUMMY_API char shlib_dummy_bss[1 << 16];

DUMMY_API int shlib_dummy_fn(int x)
{
	return x + shlib_dummy_data[x & 3] + shlib_dummy_bss[x & 0xffff];
}

/*
 * papif_support.c - conversion between Fortran CHARACTER arguments and C strings.
 */
#include "papif_support.h"

#include <string.h>

int tly_fstr_in(char *dst, size_t cap, const char *src, size_t len)
{
	size_t n = 0;

	if (cap == 0)
		return -1;
	/* Some codes terminate names with char(0) (e.g. 'name'//char(0)). */
	while (n < len && src[n] != '\0')
		n++;
	while (n > 0 && src[n - 1] == ' ')
		n--;
	if (n >= cap) {
		memcpy(dst, src, cap - 1);
		dst[cap - 1] = '\0';
		return -1;
	}
	memcpy(dst, src, n);
	dst[n] = '\0';
	return 0;
}

void tly_fstr_out(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len);

	memcpy(dst, src, n);
	memset(dst + n, ' ', len - n);
}

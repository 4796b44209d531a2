/*
 * dl_table.c - loading a library at run time into a table of entry points
 * (dl_table.h).
 */
#include "services/dl_table.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

void *tly_dl_open_first(const char *const *names, char *err, size_t len)
{
	void *h = NULL;

	for (int i = 0; names[i] && !h; i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!h)
		snprintf(err, len, "%s", dlerror());
	return h;
}

int tly_dl_resolve(void *h, const char *lib, const struct tly_dl_sym *syms, size_t n, void *table,
		   char *err, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		void *p = dlsym(h, syms[i].name);

		if (!p) {
			snprintf(err, len, "%s: symbol %s missing (library too old?)", lib, syms[i].name);
			return -1;
		}
		memcpy((char *)table + syms[i].off, &p, sizeof p);
	}
	return 0;
}

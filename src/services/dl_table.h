/*
 * dl_table.h - loading a library at run time into a table of entry
 * points, for the components that dlopen what they drive (cuda: libcuda,
 * libcupti; nvml: libnvidia-ml), so that Tally builds and runs without
 * them.  A table is a struct of function pointers; a list of
 * TLY_DL_SYM(struct, member) rows says which symbol fills which member.
 */
#ifndef TALLY_DL_TABLE_H
#define TALLY_DL_TABLE_H

#include <stddef.h>

struct tly_dl_sym {
	const char *name;   /* the library's symbol */
	size_t off;         /* where its address goes in the table */
};

/* The member's name is expanded first, so an entry point a header renames
 * with a macro (cuCtxPushCurrent -> cuCtxPushCurrent_v2) is looked up
 * under its real name. */
#define TLY_DL_STR_(x) #x
#define TLY_DL_STR(x) TLY_DL_STR_(x)
#define TLY_DL_SYM(type, member) { TLY_DL_STR(member), offsetof(type, member) }

/* dlopen (RTLD_NOW | RTLD_LOCAL) the first of the NULL-ended `names` that
 * loads; NULL with dlerror's text in err[len] when none does. */
void *tly_dl_open_first(const char *const *names, char *err, size_t len);

/* Resolve the n symbols of `syms` in h into `table`.  0, or -1 with
 * "<lib>: symbol <name> missing (library too old?)" in err[len]. */
int tly_dl_resolve(void *h, const char *lib, const struct tly_dl_sym *syms, size_t n, void *table,
		   char *err, size_t len);

#endif /* TALLY_DL_TABLE_H */

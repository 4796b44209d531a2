/*
 * names.h - an ordered set of NUL-terminated keys (id = order of first
 * insertion).  Pure: no MPI, no runtime state.
 */
#ifndef TALLY_NAMES_H
#define TALLY_NAMES_H

#include <stddef.h>

struct tly_names {
	char *buf;            /* keys, NUL-terminated, back to back */
	size_t len, cap;
	size_t *off;          /* key i at buf + off[i] */
	int n, ncap;
	int *tab;             /* open-addressing hash: index + 1, 0 = empty */
	int tabcap;
};

int tly_names_add(struct tly_names *nm, const char *key);   /* id or -1 */
int tly_names_find(const struct tly_names *nm, const char *key);
void tly_names_free(struct tly_names *nm);
static inline const char *tly_names_key(const struct tly_names *nm, int i) { return nm->buf + nm->off[i]; }
#endif

#include "core/shlib.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"

/* The table handed to callers; rebuilt in place on every call. */
static struct {
	pthread_mutex_t lock;
	PAPI_address_map_t *map;
	int cap;
	PAPI_shlib_info_t info;
} shlib_state = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* One line of /proc/self/maps. */
struct maps_line {
	char *start, *end;
	char perms[8];
	unsigned long inode;
	const char *path; /* "" for anonymous mappings */
};

static int parse_line(char *line, struct maps_line *ml)
{
	unsigned long long s, e;
	int off = 0;

	line[strcspn(line, "\n")] = '\0';
	if (sscanf(line, "%llx-%llx %7s %*s %*s %lu %n", &s, &e, ml->perms, &ml->inode, &off) < 4)
		return -1;
	ml->start = (char *)(uintptr_t)s;
	ml->end = (char *)(uintptr_t)e;
	ml->path = off > 0 ? line + off : "";
	return 0;
}

/* Entry for `path`, appended when new; NULL when out of memory. */
static PAPI_address_map_t *entry_for(const char *path)
{
	PAPI_address_map_t *m;

	for (int i = shlib_state.info.count - 1; i >= 0; i--)
		if (strcmp(shlib_state.map[i].name, path) == 0)
			return &shlib_state.map[i];
	if (shlib_state.info.count == shlib_state.cap) {
		int cap = shlib_state.cap ? 2 * shlib_state.cap : 64;
		void *p = realloc(shlib_state.map, (size_t)cap * sizeof *m);

		if (!p)
			return NULL;
		shlib_state.map = p;
		shlib_state.cap = cap;
	}
	m = &shlib_state.map[shlib_state.info.count++];
	memset(m, 0, sizeof *m);
	snprintf(m->name, sizeof m->name, "%s", path);
	return m;
}

/*
 * Files: r-x gives the text, rw- the data.  The kernel maps the zero-fill
 * tail of a library's bss as an anonymous rw- mapping directly after its
 * data mapping; that mapping is the bss range.
 */
static int add_line(const struct maps_line *ml, PAPI_address_map_t **last_data)
{
	PAPI_address_map_t *m;

	if (ml->path[0] != '/') {
		m = *last_data;
		if (m && ml->path[0] == '\0' && ml->inode == 0 && strncmp(ml->perms, "rw", 2) == 0 &&
		    ml->start == m->data_end && !m->bss_start) {
			m->bss_start = ml->start;
			m->bss_end = ml->end;
		}
		*last_data = NULL;
		return PAPI_OK;
	}
	m = entry_for(ml->path);
	if (!m)
		return tly_err_set(PAPI_ENOMEM, "Out of memory listing shared libraries.");
	*last_data = NULL;
	if (ml->perms[2] == 'x' && !m->text_start) {
		m->text_start = ml->start;
		m->text_end = ml->end;
	} else if (strncmp(ml->perms, "rw", 2) == 0 && !m->data_start) {
		m->data_start = ml->start;
		m->data_end = ml->end;
		*last_data = m;
	}
	return PAPI_OK;
}

/* Data files mapped by the program (locale archives...) are not libraries. */
static void drop_non_code(void)
{
	int n = 0;

	for (int i = 0; i < shlib_state.info.count; i++)
		if (shlib_state.map[i].text_start)
			shlib_state.map[n++] = shlib_state.map[i];
	shlib_state.info.count = n;
}

static int rebuild(FILE *f)
{
	PAPI_address_map_t *last_data = NULL;
	char *line = NULL;
	size_t len = 0;
	int rc = PAPI_OK;

	shlib_state.info.count = 0;
	while (rc == PAPI_OK && getline(&line, &len, f) > 0) {
		struct maps_line ml;

		if (parse_line(line, &ml) == 0)
			rc = add_line(&ml, &last_data);
	}
	free(line);
	drop_non_code();
	shlib_state.info.map = shlib_state.map;
	return rc;
}

const PAPI_shlib_info_t *tly_shlib_info(void)
{
	const PAPI_shlib_info_t *ret = NULL;
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f) {
		tly_err_set(PAPI_ESYS, "Cannot open /proc/self/maps (%s).", strerror(errno));
		return NULL;
	}
	pthread_mutex_lock(&shlib_state.lock);
	if (rebuild(f) == PAPI_OK)
		ret = &shlib_state.info;
	pthread_mutex_unlock(&shlib_state.lock);
	fclose(f);
	return ret;
}

void tly_shlib_release(void)
{
	pthread_mutex_lock(&shlib_state.lock);
	free(shlib_state.map);
	shlib_state.map = NULL;
	shlib_state.cap = 0;
	shlib_state.info.map = NULL;
	shlib_state.info.count = 0;
	pthread_mutex_unlock(&shlib_state.lock);
}

/*
 * h5_load.c - the writer's entry points in the preload library
 * (output/output.h, output/out_host.h), which has no HDF5: they load the
 * HDF5 writer library libtally-h5.so (output/h5_lib.h) at their first
 * call and go through its table.
 *
 * The library is found only by the absolute path of the directory the
 * preload library was loaded from (both are built and installed side by
 * side), resolved when the preload was loaded, never through a search
 * path (LD_LIBRARY_PATH, RUNPATH) that a user controls nor against the
 * current directory; it is loaded only when it and its directory belong to
 * root or this user and nobody else may write them; opened RTLD_LOCAL:
 * HDF5's symbols never meet the program's.
 */
#include "output/h5_lib.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/names.h"
#include "output/out_host.h"
#include "output/out_rows.h"
#include "output/output.h"
#include "output/unify.h"

const char *tly_out_why(int e)
{
	if (e == -EXDEV)
		return "a name Tally created there was replaced by someone else's file or link";
	if (e == -ELOOP)
		return "the directory is a link made by another user, not followed";
	if (e == -ELIBACC)
		return "the HDF5 writer library " TLY_H5_LIB_NAME " could not be loaded";
	return strerror(e < 0 ? -e : EIO);
}

static const struct tly_h5_host host = {
	.abi = TLY_H5_ABI,
	.proc = tly_out_proc,
	.vlog = tly_out_vlog,
	.now = tly_out_now,
	.unify = tly_unify,
	.names_free = tly_names_free,
	.rows_build = tly_out_rows_build,
	.rows_free = tly_out_rows_free,
	.why = tly_out_why,
	.modules = tly_out_modules,
	.stage_create = tly_out_stage_create,
	.stage_join = tly_out_stage_join,
	.stage_current = tly_out_stage_current,
	.stage_check = tly_out_stage_check,
	.stage_publish = tly_out_stage_publish,
	.stage_discard = tly_out_stage_discard,
	.stage_close = tly_out_stage_close,
	.stage_where = tly_out_stage_where,
};

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static const struct tly_h5_lib *lib;   /* written once, inside load_once */
/* How the library and HDF5's ~40 dependencies are bound.  Lazily at an
 * MPI job's write, inside MPI_Finalize (4-5 ms less of the job's end than
 * binding all of it: most functions of libcurl, gnutls, krb5... are never
 * called); at once when loaded at start-up or in the destructor, since
 * those processes write from the exit handler, after the loader's
 * finaliser ran.  Set before load_once by the caller that loads. */
static _Atomic int bind_now;

/* Where this library was loaded from, found once at load (a constructor),
 * never later: a preload given by a relative path (TALLY_PRELOAD=lib/...,
 * LD_PRELOAD=lib/...) would be resolved against the current directory of
 * the moment, which the program may have changed (issue 47).  The kernel's
 * name of the mapping (/proc/self/maps) is absolute whatever the cwd; the
 * loader's name through realpath at load is the fallback. */
static pthread_once_t where_once = PTHREAD_ONCE_INIT;
static char where[PATH_MAX];   /* written once, inside where_once; "" unknown */

/* The file mapped at addr, from /proc/self/maps; 0 or -1. */
static int mapped_file(const void *addr, char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[PATH_MAX + 128];
	unsigned long lo, hi, a = (unsigned long)addr;
	int at, rc = -1;

	if (!f)
		return -1;
	while (rc && fgets(line, sizeof line, f)) {
		size_t n = strlen(line);

		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &lo, &hi, &at) < 2 || a < lo || a >= hi)
			continue;
		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		if (line[at] == '/' && !strstr(line + at, " (deleted)") && strlen(line + at) < len) {
			snprintf(buf, len, "%s", line + at);
			rc = 0;
		}
		break;
	}
	fclose(f);
	return rc;
}

static void find_where(void)
{
	Dl_info di;

	if (mapped_file((const void *)&host, where, sizeof where) == 0)
		return;
	if (!dladdr((void *)&host, &di) || !di.dli_fname || !realpath(di.dli_fname, where))
		where[0] = '\0';
}

__attribute__((constructor)) static void where_at_load(void)
{
	pthread_once(&where_once, find_where);
}

/* <directory of this library>/libtally-h5.so, absolute; 0 or -1. */
static int lib_path(char *buf, size_t len)
{
	const char *slash;

	pthread_once(&where_once, find_where);
	slash = strrchr(where, '/');
	if (!slash || snprintf(buf, len, "%.*s/%s", (int)(slash - where), where, TLY_H5_LIB_NAME) >= (int)len)
		return -1;
	return 0;
}

/* Not writable by anyone but its owner, and owned by root or this user. */
static int trusted(const struct stat *st)
{
	return (st->st_uid == 0 || st->st_uid == geteuid()) && !(st->st_mode & 022);
}

/* The library and its directory are root's or this user's and closed to
 * others (no one else could have put it there or swap it); NULL, or why not. */
static const char *untrusted(const char *path)
{
	char dir[PATH_MAX + 32];
	const char *slash = strrchr(path, '/');
	struct stat st;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return strerror(errno);
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !trusted(&st)) {
		close(fd);
		return "not a regular file of root or this user closed to others";
	}
	close(fd);
	snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 0, path);
	if (!dir[0] || stat(dir, &st) != 0 || !trusted(&st))
		return "its directory is writable by others";
	return NULL;
}

static void load(void)
{
	char path[PATH_MAX + 32];
	tly_h5_open_fn open_fn;
	const char *bad;
	void *h;

	if (lib_path(path, sizeof path) != 0) {
		tly_out_log(1, "cannot tell where libtally-preload.so was loaded from, so the HDF5 writer "
			    "library " TLY_H5_LIB_NAME " beside it cannot be loaded; no measurement file written");
		return;
	}
	if ((bad = untrusted(path))) {
		tly_out_log(1, "the HDF5 writer library %s is not loaded: %s; no measurement file written", path, bad);
		return;
	}
	h = dlopen(path, (bind_now ? RTLD_NOW : RTLD_LAZY) | RTLD_LOCAL);
	open_fn = h ? (tly_h5_open_fn)dlsym(h, TLY_H5_LIB_ENTRY) : NULL;
	if (!open_fn || !(lib = open_fn(&host))) {
		const char *e = dlerror();

		tly_out_log(1, "cannot load the HDF5 writer library %s (%s); no measurement file written", path,
			    e ? e : "not this version's");
		lib = NULL;
	}
}

const struct tly_h5_lib *tly_h5_lib_load(void)
{
	pthread_once(&load_once, load);
	return lib;
}

/* The runtime's exit handler is registered at load (rt_exit.c), before
 * the C library registers the loader's finaliser, so it runs after every
 * library's destructor.  A writer loaded only then runs again the
 * initialisers of libraries finalised by then (ASan: "CHECK failed ...
 * SoftRssLimitExceededCallback" in passes_serial and four more tests of
 * programs that link MPI but end in exit).  This library's destructor
 * runs before its dependencies' are: a process that measures and has not
 * written its file yet loads the writer here, while they are live. */
__attribute__((destructor)) static void load_before_fini(void)
{
	const struct tly_rt_proc *p = tly_out_proc();

	if (p->active && !p->finished) {
		bind_now = 1;
		(void)tly_h5_lib_load();
	}
}

void tly_out_init(void)
{
	const struct tly_h5_lib *w;

	bind_now = 1;
	w = tly_h5_lib_load();
	if (w)
		w->init();
}

int tly_out_write(char *path, size_t len, int partial)
{
	const struct tly_h5_lib *w = tly_h5_lib_load();

	return w ? w->write(path, len, partial) : -ELIBACC;
}

int tly_out_merge(const char *dir, int size, char *path, size_t len)
{
	const struct tly_h5_lib *w = tly_h5_lib_load();

	return w ? w->merge(dir, size, path, len) : -ELIBACC;
}

const struct tly_out_writer tly_out_writer_h5 = {
	.init = tly_out_init,
	.write = tly_out_write,
	.merge = tly_out_merge,
	.choose_name = tly_out_choose_name,
	.abandon = tly_out_stage_abandon,
};

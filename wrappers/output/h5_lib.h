/*
 * h5_lib.h - the HDF5 writer as a library of its own, libtally-h5.so.
 *
 * HDF5 and the ~36 libraries it needs cost every process 15-20 ms of CPU
 * when the loader maps them before any of Tally's code runs.  So the
 * preload library does not link HDF5: output/h5_load.c dlopens
 * libtally-h5.so (RTLD_LOCAL, by the absolute path of the directory the
 * preload library itself was loaded from, never a search path) at the
 * first write, or at start-up in a program without MPI (rt_state.c).
 *
 * Each side reaches the other only through a table of function pointers:
 * the preload hands the library a struct tly_h5_host (what the writer
 * needs of the preload: the process, messages and clock of
 * output/out_host.h, the unified names, the modules' rows, the staged
 * file of output/out_stage.c) and gets back a struct tly_h5_lib.  The
 * library's one exported symbol is TLY_H5_LIB_ENTRY (output/h5_entry.c,
 * the top of the library); it keeps the host table in output/h5_host.c,
 * which gives the writer's files those functions by their usual names.
 */
#ifndef TALLY_H5_LIB_H
#define TALLY_H5_LIB_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "output/names.h"
#include "output/out_module.h"
#include "output/out_stage.h"

struct tly_out_job; /* output/out_job.h, which calls the writer through this table */

#define TLY_H5_LIB_NAME "libtally-h5.so"
#define TLY_H5_LIB_ENTRY "tally_h5_writer_open"
#define TLY_H5_ABI 3

struct tly_h5_host {
	int abi;   /* TLY_H5_ABI */
	/* output/out_host.h */
	struct tly_rt_proc *(*proc)(void);
	void (*vlog)(int level, const char *fmt, va_list ap);
	int64_t (*now)(void);
	int (*unify)(void *comm, struct tly_rt_proc *p, struct tly_names *all, int32_t ***gid);
	void (*names_free)(struct tly_names *nm);
	void (*rows_build)(const struct tly_out_ctx *c, struct tly_rows *r);
	void (*rows_free)(struct tly_rows *r);
	const char *(*why)(int e);
	/* the enabled modules (their write() hooks need no HDF5: trace) */
	const struct tly_out_module *const *modules;
	/* output/out_stage.c */
	int (*stage_create)(struct tly_out_stage *s, const char *path, long long reserve);
	int (*stage_join)(struct tly_out_stage *s, const char *path, const char *priv, unsigned long long ino);
	int (*stage_current)(struct tly_out_stage *s);
	int (*stage_check)(const struct tly_out_stage *s);
	int (*stage_publish)(struct tly_out_stage *s, const char *path, int replace, char *final, size_t len);
	void (*stage_discard)(struct tly_out_stage *s);
	void (*stage_close)(struct tly_out_stage *s);
	const char *(*stage_where)(const struct tly_out_stage *s, char *buf, size_t len);
};

struct tly_h5_lib {
	void (*init)(void);
	int (*write)(char *path, size_t len, int partial);
	/* the file of an MPI job prepared by output/out_job.c: rank 0 of a
	 * gathered job alone, or every rank (collective) */
	int (*write_job)(struct tly_out_job *j, char *path, size_t len);
	int (*merge)(const char *dir, int size, char *path, size_t len);
};

typedef const struct tly_h5_lib *(*tly_h5_open_fn)(const struct tly_h5_host *host);

/* In the preload library (output/h5_load.c): the writer library's table,
 * loaded at the first call; NULL when it cannot be (said once). */
const struct tly_h5_lib *tly_h5_lib_load(void);

/* A producer's datasets beyond the tables, written inside the library
 * (nvtx/nvtx_h5.c: the payload tables), right after the write() of the
 * module named `module`; it reads that module's data through the
 * module's h5_src.  The build lists them (TALLY_H5_PARTS:
 * generated/h5_parts.c), NULL-terminated.  0 or -1, collective. */
struct tly_h5_part {
	const char *module;
	int (*write)(const struct tly_out_ctx *c, const void *src, hid_t file, hid_t dxpl);
};
extern const struct tly_h5_part *const tly_h5_parts[];

#endif /* TALLY_H5_LIB_H */

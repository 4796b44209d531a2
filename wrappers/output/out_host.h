/*
 * out_host.h - the writer and the runtime, each through a table of the
 * other's functions, so the writer (this folder) includes and calls
 * nothing of the runtime (docs/DESIGN.md, "The parts and their
 * directions"):
 *
 *   - struct tly_out_writer: the writer as the runtime's start-up and exit
 *     paths call it.  output/h5_load.c defines `tly_out_writer_h5`; the
 *     build lists it in generated/rt_writers.c (runtime/rt_writer.h).
 *   - struct tly_out_host: what the writer needs of the runtime (the
 *     record of this process, its messages, its clock).  The runtime
 *     defines `tly_out_host_rt` (runtime/rt_host.c); the build lists it in
 *     generated/out_hosts.c, and the writer's files reach it through the
 *     functions below (out_host.c; in the writer library, h5_host.c).
 *
 * The records themselves (the process, its threads and region trees) are
 * output/out_records.h.
 */
#ifndef TALLY_OUT_HOST_H
#define TALLY_OUT_HOST_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "output/out_records.h"

struct tly_out_writer {
	/* At start-up, once measuring. */
	void (*init)(void);
	/* Write this process's file alone: a serial program's, a job of one
	 * rank's, or a per-rank partial file (an MPI job of several ranks
	 * writes through output/out_job.h); path: the name chosen, filled in
	 * when empty.  0 or -errno. */
	int (*write)(char *path, size_t len, int partial);
	/* Merge the pieces rank<r>.h5 of dir into one job file path[len],
	 * which then holds the name really written (<name>.1.h5 after a
	 * collision).  0 or -1. */
	int (*merge)(const char *dir, int size, char *path, size_t len);
	/* The output path, with `suffix` (".h5", ".partial.h5"). */
	void (*choose_name)(char *buf, size_t len, const char *suffix);
	/* The exit deadline passed during a write: the file, unfinished, moved
	 * to `<stem>.unfinished.h5` (output/out_stage.h, tly_out_stage_abandon;
	 * async-signal-safe).  1 moved (`where`), 2 the write ended meanwhile
	 * (`where`: the file in place), 3 an earlier deadline took it, 0 no
	 * file under way, -errno it stays where `where` says. */
	int (*abandon)(char *where, size_t len);
};

struct tly_out_host {
	/* The record of the measured process (never NULL). */
	struct tly_rt_proc *(*proc)(void);
	/* One message, at a verbosity level (1: said by default), the way
	 * the runtime says its own: one line on stderr. */
	void (*vlog)(int level, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
	/* The runtime's clock, ns: the one its records' times are in. */
	int64_t (*now)(void);
};

/* The hosts the build lists (generated/out_hosts.c), NULL-terminated; the
 * first is used. */
extern const struct tly_out_host *const tly_out_hosts[];

/* The writer's files call the runtime through these. */
struct tly_rt_proc *tly_out_proc(void);
void tly_out_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tly_out_vlog(int level, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
int64_t tly_out_now(void);

#endif /* TALLY_OUT_HOST_H */

/*
 * rt_writer.h - the writer as the runtime's exit paths and start-up call
 * it.  The runtime knows no writer header: output/ defines its
 * `const struct tly_rt_writer tly_rt_writer_h5` (output/h5_load.c), which
 * the build lists in generated/rt_writers.c (TALLY_RT_WRITERS), the way
 * the start-up parts are listed; the runtime uses the first.
 */
#ifndef TALLY_RT_WRITER_H
#define TALLY_RT_WRITER_H

#include <stddef.h>

struct tly_rt_writer {
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

/* The writers the build enabled, NULL-terminated; the first is used. */
extern const struct tly_rt_writer *const tly_rt_writers[];

#endif /* TALLY_RT_WRITER_H */

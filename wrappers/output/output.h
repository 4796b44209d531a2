/*
 * output.h - the writer's entry points (output/h5_writer.c, h5_merge.c);
 * the runtime reaches them through output/out_host.h's writer table
 * (output/h5_load.c, tly_out_writer_h5).
 */
#ifndef TALLY_OUTPUT_H
#define TALLY_OUTPUT_H

#include <stddef.h>


/* Write this process's file alone (serial, a job of one rank, or a
 * per-rank partial file; a job of several ranks: output/out_job.h).
 * 0 or -errno. */
int tly_out_write(char *path, size_t len, int partial);
struct tly_out_job;
/* The writer library's half of output/out_job.c: the file of an MPI job
 * whose rows the preload library prepared (output/out_job.h); rank 0
 * alone when they were gathered, else every rank, collectively.
 * 0 or -errno. */
int tly_h5_write_job(struct tly_out_job *j, char *path, size_t len);
/* The reason of a -errno of tly_out_write, said in words. */
const char *tly_out_why(int e);
void tly_out_init(void);

/* Merge the pieces rank<r>.h5 of dir into one job file (output/h5_merge.c). */
int tly_out_merge(const char *dir, int size, char *path, size_t len);
/* The output path: TALLY_OUTPUT_DIR/TALLY_OUTPUT_NAME, else a name of the
 * program, date, time and pid, with `suffix` (output/out_name.c). */
void tly_out_choose_name(char *buf, size_t len, const char *suffix);
#endif /* TALLY_OUTPUT_H */

/*
 * h5_host.h - the host table of the writer library (h5_host.c): given by
 * the entry point (h5_entry.c) before any of the library's other code
 * runs; h5_host.c's functions, the runtime's by their usual names, call
 * through it.
 */
#ifndef TALLY_H5_HOST_H
#define TALLY_H5_HOST_H

#include "output/h5_lib.h"

/* Keeps h (checked by the caller) for the functions of h5_host.c; called
 * once, under the preload library's load lock (output/h5_load.c). */
void tly_h5_host_set(const struct tly_h5_host *h);

#endif /* TALLY_H5_HOST_H */

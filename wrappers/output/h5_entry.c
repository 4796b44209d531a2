/*
 * h5_entry.c - the writer library's one exported function (output/h5_lib.h):
 * it takes the preload library's host table (kept by h5_host.c) and hands
 * back the library's table of the writer's entry points (h5_writer.c,
 * h5_merge.c).  The top of the library: the writer's files call the
 * runtime through h5_host.c, never up into this file.
 */
#include "output/h5_host.h"

#include <stddef.h>

#include "output/output.h"

static const struct tly_h5_lib lib = {
	.init = tly_out_init,
	.write = tly_out_write,
	.write_job = tly_h5_write_job,
	.merge = tly_out_merge,
};

__attribute__((visibility("default"))) const struct tly_h5_lib *tally_h5_writer_open(const struct tly_h5_host *h);

const struct tly_h5_lib *tally_h5_writer_open(const struct tly_h5_host *h)
{
	if (!h || h->abi != TLY_H5_ABI)
		return NULL;
	tly_h5_host_set(h);
	return &lib;
}

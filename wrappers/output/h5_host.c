/*
 * h5_host.c - the writer library's side of output/h5_lib.h below the
 * writer: the preload library's host table (given by the entry point,
 * h5_entry.c) and the preload's functions the writer's files call
 * (h5_writer.c, h5_merge.c, nvtx/nvtx_h5.c), each through that table, so
 * those files are the same as when they were part of the preload library
 * (there, output/out_host.c has tly_out_proc, tly_out_log, tly_out_now).
 */
#include "output/h5_host.h"

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include "output/names.h"
#include "output/out_host.h"
#include "output/out_rows.h"
#include "output/output.h"
#include "output/unify.h"

/* Set once, by the preload library before its first call into this one
 * (under its load lock, output/h5_load.c); read-only afterwards. */
static const struct tly_h5_host *host;

struct tly_rt_proc *tly_out_proc(void)
{
	return host->proc();
}

void tly_out_vlog(int level, const char *fmt, va_list ap)
{
	host->vlog(level, fmt, ap);
}

void tly_out_log(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	host->vlog(level, fmt, ap);
	va_end(ap);
}

/* The writer needs time for its own duration (write_seconds): the
 * runtime's clock, which the preload's side of it read (out_gather.c). */
int64_t tly_out_now(void)
{
	return host->now();
}

int tly_unify(void *comm, struct tly_rt_proc *p, struct tly_names *all, int32_t ***gid)
{
	return host->unify(comm, p, all, gid);
}

void tly_names_free(struct tly_names *nm)
{
	host->names_free(nm);
}

void tly_out_rows_build(const struct tly_out_ctx *c, struct tly_rows *r)
{
	host->rows_build(c, r);
}

void tly_out_rows_free(struct tly_rows *r)
{
	host->rows_free(r);
}

const char *tly_out_why(int e)
{
	return host->why(e);
}

int tly_out_stage_create(struct tly_out_stage *s, const char *path, long long reserve)
{
	return host->stage_create(s, path, reserve);
}

int tly_out_stage_join(struct tly_out_stage *s, const char *path, const char *priv, unsigned long long ino)
{
	return host->stage_join(s, path, priv, ino);
}

int tly_out_stage_current(struct tly_out_stage *s)
{
	return host->stage_current(s);
}

int tly_out_stage_check(const struct tly_out_stage *s)
{
	return host->stage_check(s);
}

int tly_out_stage_publish(struct tly_out_stage *s, const char *path, int replace, char *final, size_t len)
{
	return host->stage_publish(s, path, replace, final, len);
}

void tly_out_stage_discard(struct tly_out_stage *s)
{
	host->stage_discard(s);
}

void tly_out_stage_close(struct tly_out_stage *s)
{
	host->stage_close(s);
}

const char *tly_out_stage_where(const struct tly_out_stage *s, char *buf, size_t len)
{
	return host->stage_where(s, buf, len);
}

/* Every module's write() (in the preload library) with context m, each
 * followed by this library's part for it with context c, in list order,
 * until one fails; m or c NULL: those are not run here.  0 or -1. */
int tly_out_modules_write(const struct tly_out_ctx *m, const struct tly_out_ctx *c, hid_t file, hid_t dxpl)
{
	int rc = 0;

	for (int k = 0; host->modules[k] && rc == 0; k++) {
		const struct tly_out_module *mod = host->modules[k];

		if (m && mod->write)
			rc = mod->write(m, file, dxpl);
		for (int i = 0; c && tly_h5_parts[i] && rc == 0; i++)
			if (!strcmp(tly_h5_parts[i]->module, mod->name))
				rc = tly_h5_parts[i]->write(c, mod->h5_src, file, dxpl);
	}
	return rc;
}

void tly_h5_host_set(const struct tly_h5_host *h)
{
	host = h;
}

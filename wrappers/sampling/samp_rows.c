/*
 * samp_rows.c - the writer module "sampling": the samples' code addresses
 * named (function, file:line, module; the functions inlined there as frames
 * of their own, from DWARF's inlined-subroutine scopes), each thread's
 * paths as keys of frames from the outermost, unified across ranks as the
 * region paths are (output/unify.h), and the rows of sample_paths, samples
 * and sampling_status.  Runs at the write, outside any signal handler.
 *
 * A frame key is "function\x1efile\x1eline\x1emodule\x1einlined"; a path
 * key is its frames from the outermost joined by '\x1f'.
 */
#include "output/out_module.h"
#include "sampling/samp.h"
#include "runtime/rt_scopes.h"
#include "runtime/rt_symindex.h"

#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "output/unify.h"
#include "output/unify_tree.h"

/* a growing string */
struct str {
	char *s;
	size_t len, cap;
};

static int put(struct str *d, const char *s, size_t n)
{
	if (d->len + n + 1 > d->cap) {
		size_t cap = d->cap ? d->cap : 256;
		char *m;

		while (cap < d->len + n + 1)
			cap *= 2;
		if (!(m = realloc(d->s, cap)))
			return -1;
		d->s = m;
		d->cap = cap;
	}
	memcpy(d->s + d->len, s, n);
	d->len += n;
	d->s[d->len] = '\0';
	return 0;
}

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path ? path : "";
}

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

/* C++ names demangled with the C++ runtime's __cxa_demangle where the
 * process has one (a C++ program); otherwise the name as it is. */
static const char *pretty(const char *name, char *buf, size_t len)
{
	static demangle_fn dm;
	static int looked;
	char *d;
	int st = -1;

	if (!name || strncmp(name, "_Z", 2) != 0)
		return name;
	if (!looked) {
		dm = (demangle_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "__cxa_demangle");
		looked = 1;
	}
	if (!dm || !(d = dm(name, NULL, NULL, &st)) || st != 0)
		return name;
	snprintf(buf, len, "%s", d);
	free(d);
	return buf;
}

static const char *die_name(Dwarf_Die *die, char *buf, size_t len)
{
	Dwarf_Attribute a;
	const char *s = NULL;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) || dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		s = dwarf_formstring(&a);
	if (s && strncmp(s, "_Z", 2) == 0)
		return pretty(s, buf, len);
	if (dwarf_attr_integrate(die, DW_AT_name, &a))
		s = dwarf_formstring(&a);
	/* GCC names an outlined OpenMP body by its function's linkage name
	 * and a suffix ("_ZL4workPd._omp_fn.0"), as the symbol table does */
	return s ? pretty(s, buf, len) : "?";
}

static int frame(struct str *d, const char *fn, const char *file, long line, const char *mod, int inl)
{
	char tail[320];
	int n = snprintf(tail, sizeof tail, "\x1e%s\x1e%ld\x1e%s\x1e%d", base_name(file), line, mod, inl);

	if (d->len && put(d, "\x1f", 1) != 0)
		return -1;
	return put(d, fn, strnlen(fn, 500)) || put(d, tail, (size_t)n < sizeof tail ? (size_t)n : sizeof tail - 1);
}

#define MAX_INLINE 32

struct pcframe {
	const char *fn, *file;
	long line;
	int inl;
	char buf[256];
};

/* The frames of chain (the function instances holding an address,
 * innermost first, from runtime/rt_scopes.c), each with the file:line executing
 * in it: the innermost runs the address's line, each caller the line of
 * its call. */
static int inline_chain(Dwarf_Die *cu, Dwarf_Die *chain, int nc, const char *file, long line, struct pcframe *f)
{
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	int nf = 0;

	dwarf_getsrcfiles(cu, &files, &nfiles);
	for (int i = 0; i < nc && nf < MAX_INLINE; i++) {
		int tag = dwarf_tag(&chain[i]);
		Dwarf_Attribute a;
		Dwarf_Word cf = 0, cl = 0;

		if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
			continue;
		f[nf].fn = die_name(&chain[i], f[nf].buf, sizeof f[nf].buf);
		f[nf].file = file;
		f[nf].line = line;
		f[nf].inl = tag == DW_TAG_inlined_subroutine;
		nf++;
		if (tag == DW_TAG_subprogram)
			break;
		/* the caller runs the call's line */
		if (dwarf_attr(&chain[i], DW_AT_call_file, &a))
			dwarf_formudata(&a, &cf);
		if (dwarf_attr(&chain[i], DW_AT_call_line, &a))
			dwarf_formudata(&a, &cl);
		file = files && cf < nfiles ? dwarf_filesrc(files, cf, NULL, NULL) : "";
		line = (long)cl;
	}
	return nf;
}

struct pc_names_mod {
	Dwfl_Module *m;
	int own;
};

/* Does the module's own file carry DWARF (built -g)?  A module whose
 * debug information is a separate file (Debian's -dbg and -dbgsym
 * packages: compressed sections) is named from its symbol table alone:
 * reading that DWARF, to give lines in libc, cost every sampling process
 * about 105 ms (libc6-dbg's sections inflated at the first lookup) and
 * the program's own code never needs it.  The last answer is kept. */
static int own_dwarf(Dwfl_Module *m, struct pc_names_mod *last)
{
	GElf_Addr bias;
	Elf *e;
	size_t shstr;
	Elf_Scn *scn = NULL;

	if (m == last->m)
		return last->own;
	last->m = m;
	last->own = 0;
	if (!(e = dwfl_module_getelf(m, &bias)) || elf_getshdrstrndx(e, &shstr) != 0)
		return 0;
	while (!last->own && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(e, shstr, sh.sh_name) : NULL;

		last->own = name && (!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info"));
	}
	return last->own;
}

/* The frames at pc (a function and the ones inlined into it), outermost
 * first, as frame keys into d. */
static int pc_frames(Dwfl *dwfl, struct tly_rt_scopes *sx, struct tly_rt_symindex *syms, struct pc_names_mod *last,
		     uint64_t pc, struct str *d)
{
	Dwfl_Module *m = dwfl ? dwfl_addrmodule(dwfl, pc) : NULL;
	struct pcframe f[MAX_INLINE];
	const char *mod = "?", *file = "";
	int line = 0, nf = 0, rc = 0;
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu, chain[MAX_INLINE];
	Dwfl_Line *l;

	if (m)
		mod = base_name(dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
	if (m && own_dwarf(m, last)) {
		if ((l = dwfl_module_getsrc(m, pc)) && !(file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL)))
			file = "";
		if ((cu = dwfl_module_addrdie(m, pc, &bias))) {
			int nc = tly_rt_scopes_at(sx, cu, pc - bias, chain, MAX_INLINE, NULL, NULL);

			if (nc > 0)
				nf = inline_chain(cu, chain, nc, file, line, f);
		}
	}
	if (nf == 0) {   /* no DWARF scope: the symbol table's name */
		const char *sym = m ? tly_rt_symindex_name(syms, m, pc, NULL) : NULL;

		f[0].fn = sym ? pretty(sym, f[0].buf, sizeof f[0].buf) : "?";
		f[0].file = file;
		f[0].line = line;
		f[0].inl = 0;
		nf = 1;
	}
	for (int i = nf - 1; i >= 0 && rc == 0; i--)
		rc = frame(d, f[i].fn, f[i].file, f[i].line, mod, f[i].inl);
	return rc;
}

/* Each address's frames, named once per process. */
struct pc_names {
	struct tly_samp_map idx;   /* (pc, 0) -> entry */
	struct tly_rt_scopes sx; /* the units' function instances */
	struct tly_rt_symindex syms;   /* the modules' symbol tables, sorted */
	struct pc_names_mod last;  /* own_dwarf's last module */
	char **s;
	int32_t n, cap;
};

static const char *frames_of(struct pc_names *c, Dwfl *dwfl, uint64_t pc)
{
	int32_t i = tly_samp_map_get(&c->idx, (int64_t)pc, 0);
	struct str d = { 0 };

	if (i >= 0)
		return c->s[i];
	if (c->n == c->cap) {
		int32_t cap = c->cap ? c->cap * 2 : 256;
		char **m = realloc(c->s, sizeof *m * (size_t)cap);

		if (!m)
			return NULL;
		c->s = m;
		c->cap = cap;
	}
	if (pc_frames(dwfl, &c->sx, &c->syms, &c->last, pc, &d) != 0 || !d.s || tly_samp_map_put(&c->idx, (int64_t)pc, 0, c->n) != 0) {
		free(d.s);
		return NULL;
	}
	c->s[c->n] = d.s;
	return c->s[c->n++];
}

/* The path key of every node of s (keys[i] malloc'd, parents first, as
 * nodes are made after their parent), each path prefix added to local. */
static char **thread_keys(struct tly_samp_thread *s, struct pc_names *c, Dwfl *dwfl, struct tly_names *local)
{
	char **keys = calloc((size_t)s->nnodes + 1, sizeof *keys);

	for (int32_t i = 0; keys && i < s->nnodes; i++) {
		const struct tly_samp_node *n = &s->nodes[i];
		const char *fr = frames_of(c, dwfl, n->pc);
		struct str d = { 0 };
		size_t at;

		if (n->parent >= 0 && keys[n->parent])
			put(&d, keys[n->parent], strlen(keys[n->parent]));
		at = d.len;
		if (!fr || (d.len && put(&d, "\x1f", 1)) || put(&d, fr, strlen(fr))) {
			free(d.s);
			continue;
		}
		/* the frames inlined at this address are paths too */
		for (char *x = strchr(d.s + at + 1, '\x1f'); x; x = strchr(x + 1, '\x1f')) {
			*x = '\0';
			tly_names_add(local, d.s);
			*x = '\x1f';
		}
		tly_names_add(local, d.s);
		keys[i] = d.s;
	}
	return keys;
}

static void path_row(struct tly_row_sample_paths *x, const struct tly_names *all, int i)
{
	const char *key = tly_names_key(all, i), *last = strrchr(key, '\x1f');
	char *f, *fld[5] = { 0 };
	int k = 0;

	x->id = i;
	x->parent = -1;
	if (last) {
		char *pre = strndup(key, (size_t)(last - key));

		x->parent = pre ? tly_names_find(all, pre) : -1;
		free(pre);
	}
	if (!(f = strdup(last ? last + 1 : key)))
		return;
	for (char *s = f, *e; k < 5 && s; s = e ? e + 1 : NULL, k++) {
		e = strchr(s, '\x1e');
		if (e)
			*e = '\0';
		fld[k] = s;
	}
	snprintf(x->function, sizeof x->function, "%s", fld[0] ? fld[0] : "?");
	snprintf(x->file, sizeof x->file, "%s", fld[1] ? fld[1] : "");
	x->line = fld[2] ? atoi(fld[2]) : 0;
	snprintf(x->module, sizeof x->module, "%s", fld[3] ? fld[3] : "");
	x->inlined = fld[4] ? atoi(fld[4]) : 0;
	free(f);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* The handler's cost: the median of its last timings times the samples. */
static int64_t handler_ns(const struct tly_samp_thread *s)
{
	uint32_t n = atomic_load(&s->ntimed), v[TLY_SAMP_TIMINGS];

	n = n < TLY_SAMP_TIMINGS ? n : TLY_SAMP_TIMINGS;
	if (!n)
		return 0;
	memcpy(v, s->timing, n * sizeof *v);
	qsort(v, n, sizeof *v, cmp_u32);
	return (int64_t)v[n / 2] * atomic_load(&s->signals);   /* one handler call per signal */
}

static int64_t thread_cost(const struct tly_samp_thread *s)
{
	return handler_ns(s) + s->unwind_ns;
}

/* The source and the rate it gave: a timer's signals come at most at the
 * kernel's tick, each standing for 1 + its overruns. */
static void source_note(struct tly_row_sampling_status *x, const struct tly_samp_thread *s)
{
	const struct tly_samp_state *st = tly_samp_state();
	int64_t sig = atomic_load(&s->signals), taken = atomic_load(&s->taken);
	long long eff = taken > 0 ? (long long)((double)st->rate * (double)sig / (double)taken + 0.5) : 0;

	x->signals = sig;
	if (st->event) {
		snprintf(x->source, sizeof x->source, "perf %s", st->ev.name);
		snprintf(x->note, sizeof x->note, "one sample every %lld %s of the thread (%s)", st->ev.period,
			 st->ev.name, st->ev.full);
		return;
	}
	if (st->source == TLY_SAMP_PERF) {
		snprintf(x->source, sizeof x->source, "perf cpu-clock");
		snprintf(x->note, sizeof x->note, "perf's cpu-clock of the thread, every %ld ns: %lld samples per CPU second",
			 1000000000L / st->rate, eff);
		return;
	}
	snprintf(x->source, sizeof x->source, "timer cpu-clock");
	snprintf(x->note, sizeof x->note,
		 "timer on the thread's CPU clock%s%s%s: checked at the kernel's tick, %lld signals per CPU second for %d "
		 "asked, each weighted by 1 + its overruns",
		 st->why_timer[0] ? " (perf not used: " : "", st->why_timer, st->why_timer[0] ? ")" : "", eff, st->rate);
}

_Static_assert(sizeof ((struct tly_samp_state *)0)->why <= sizeof ((struct tly_row_sampling_status *)0)->status,
	       "sampling_status.status holds the whole reason sampling is off");

static void status_row(struct tly_row_sampling_status *x, const struct tly_rt_proc *p,
		       const struct tly_samp_thread *s, const char *why)
{
	x->rank = p->rank;
	x->thread = s ? s->t->index : -1;
	x->rate = tly_samp_state()->rate;
	snprintf(x->status, sizeof x->status, "%s", why);
	if (!s)
		return;
	source_note(x, s);
	x->taken = atomic_load(&s->taken);
	x->kept = s->kept;
	x->lost_full = atomic_load(&s->lost_full);
	x->lost_stack = atomic_load(&s->lost_stack);
	x->lost_unwind = s->lost_unwind;
	if (s->periods > atomic_load(&s->signals))
		x->unsignalled = s->periods - atomic_load(&s->signals);
	x->truncated = s->truncated;
	x->handler_ns = handler_ns(s);
	x->unwind_ns = s->unwind_ns;
}

static void count_rows(const struct tly_out_ctx *c, struct tly_rows *r, char ***keys, const struct tly_names *all)
{
	struct tly_samp_state *st = tly_samp_state();
	struct tly_row_samples *x;
	int64_t n = 0, k = 0;
	int ti = 0;

	for (struct tly_samp_thread *s = st->threads; s; s = s->next)
		n += s->ncounts;
	if (!(x = tly_rows_alloc(r, TLY_T_samples, n, sizeof *x)))
		return;
	for (struct tly_samp_thread *s = st->threads; s; s = s->next, ti++)
		for (int32_t i = 0; i < s->ncounts; i++) {
			const struct tly_samp_count *sc = &s->counts[i];
			const char *key = keys[ti] ? keys[ti][sc->node] : NULL;

			x[k].rank = c->p->rank;
			x[k].thread = s->t->index;
			x[k].path = key ? tly_names_find(all, key) : -1;
			x[k].region = tly_unify_region_of(c->p, c->gid, s->t, sc->region);
			x[k].samples = sc->samples;
			k++;
		}
}

static void status_rows(const struct tly_out_ctx *c, struct tly_rows *r, const char *why)
{
	struct tly_samp_state *st = tly_samp_state();
	struct tly_row_sampling_status *x;
	int64_t n = 0, k = 0;

	for (struct tly_samp_thread *s = *why ? NULL : st->threads; s; s = s->next)
		n++;
	if (!(x = tly_rows_alloc(r, TLY_T_sampling_status, n ? n : 1, sizeof *x)))
		return;
	if (!n)
		status_row(&x[0], c->p, NULL, *why ? why : "no measured thread was sampled");
	for (struct tly_samp_thread *s = *why ? NULL : st->threads; s; s = s->next)
		status_row(&x[k++], c->p, s, "");
}

static void free_keys(char ***keys, const struct tly_samp_state *st)
{
	int ti = 0;

	for (const struct tly_samp_thread *s = st->threads; keys && s; s = s->next, ti++) {
		for (int32_t i = 0; keys[ti] && i < s->nnodes; i++)
			free(keys[ti][i]);
		free(keys[ti]);
	}
	free(keys);
}

static void free_names(struct pc_names *pn)
{
	for (int32_t i = 0; i < pn->n; i++)
		free(pn->s[i]);
	free(pn->s);
	tly_samp_map_free(&pn->idx);
	tly_rt_scopes_free(&pn->sx);
	tly_rt_symindex_free(&pn->syms);
}

/* Collective over c->comm when sampling is on anywhere. */
static void sampling_rows(const struct tly_out_ctx *c, struct tly_rows *r)
{
	struct tly_samp_state *st = tly_samp_state();
	int on = st->on, any = st->asked, forked = atomic_load(&st->forked), nt = 0;
	struct tly_names local = { 0 }, all = { 0 };
	struct pc_names pn = { 0 };
	char ***keys = NULL;

	if (c->comm)
		PMPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, *(MPI_Comm *)c->comm);
	if (!any)
		return;
	if (forked || !on) {   /* the lock may be the parent's: not taken */
		tly_unify_keys(c->comm, &local, &all);
		status_rows(c, r, forked ? "a forked child takes no samples" : st->why);
		tly_names_free(&all);
		return;
	}
	tly_samp_stop();
	pthread_mutex_lock(&st->lock);
	tly_samp_drain_all(st);
	for (struct tly_samp_thread *s = st->threads; s; s = s->next)
		nt++;
	keys = calloc((size_t)nt + 1, sizeof *keys);
	nt = 0;
	for (struct tly_samp_thread *s = st->threads; keys && s; s = s->next)
		keys[nt++] = thread_keys(s, &pn, tly_samp_dwfl(), &local);
	tly_unify_keys(c->comm, &local, &all);
	if (c->rank0 || !c->comm) {
		struct tly_row_sample_paths *x = tly_rows_alloc(r, TLY_T_sample_paths, all.n, sizeof *x);

		for (int i = 0; x && i < all.n; i++)
			path_row(&x[i], &all, i);
	}
	if (keys)
		count_rows(c, r, keys, &all);
	status_rows(c, r, "");
	c->p->sampling_ns = 0;
	for (struct tly_samp_thread *s = st->threads; s; s = s->next)
		c->p->sampling_ns += thread_cost(s);
	free_keys(keys, st);
	free_names(&pn);
	pthread_mutex_unlock(&st->lock);
	tly_names_free(&local);
	tly_names_free(&all);
}

const struct tly_out_module tly_out_mod_sampling = {
	.name = "sampling",
	.tables = (const enum tly_table[]){ TLY_T_sample_paths, TLY_T_samples, TLY_T_sampling_status, TLY_NTABLES },
	.rows = sampling_rows,
};

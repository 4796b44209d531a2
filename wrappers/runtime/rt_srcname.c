/*
 * rt_srcname.c - code addresses to source names: "function (file:line)",
 * with the functions an address was inlined into ("phase (a.c:22) in main
 * (a.c:70)"), read from DWARF with elfutils' libdwfl.  Callers cache the
 * result per address (OpenMP region names, MPI call sites), so each address
 * is resolved once; the DWARF of a module is read on its first address.
 * The raw address is always given too, as "module+0xoffset" (stable across
 * ranks and runs, what addr2line takes).  Without line information (a
 * program built without -g) the name is the symbol and offset from the
 * module's ELF symbol table (.symtab, else .dynsym: libdwfl); without libdw,
 * as dladdr tells (exported symbols only), else module+offset.
 */
#include "runtime/rt.h"
#include "runtime/rt_debuginfo.h"
#include "runtime/rt_scopes.h"
#include "runtime/rt_srcname.h"
#include "runtime/rt_symindex.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef TALLY_HAVE_LIBDW
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#endif

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path ? path : "?";
}

/* "module+0xoffset" (dladdr); 0 when the address is in no module. */
static int raw_name(const void *pc, char *raw, size_t rlen)
{
	Dl_info di;

	if (!pc || !dladdr(pc, &di) || !di.dli_fname) {
		snprintf(raw, rlen, "%p", pc);
		return 0;
	}
	snprintf(raw, rlen, "%s+0x%lx", base_name(di.dli_fname),
		 (unsigned long)((const char *)pc - (const char *)di.dli_fbase));
	return 1;
}

static void symbol_name(const void *pc, char *name, size_t nlen, const char *raw)
{
	Dl_info di;

	if (pc && dladdr(pc, &di) && di.dli_sname)
		snprintf(name, nlen, "%s+0x%lx", di.dli_sname,
			 (unsigned long)((const char *)pc - (const char *)di.dli_saddr));
	else
		snprintf(name, nlen, "%s", raw);
}

#ifdef TALLY_HAVE_LIBDW
static struct {
	pthread_mutex_t lock;
	Dwfl *dwfl;
	struct tly_rt_scopes sx;   /* each unit's function instances, indexed once */
	struct tly_rt_symindex syms;   /* the modules' symbol tables, sorted (again after a new report) */
	int failed;
} srcnames = { .lock = PTHREAD_MUTEX_INITIALIZER };

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,   /* libdwfl's map: a default run reads no DWARF whole (rt_debuginfo.c) */
	.find_debuginfo = tly_rt_find_debuginfo,   /* never debuginfod: rt_debuginfo.c */
	.debuginfo_path = &debuginfo_path,
};

/* (Re)read the process's module list: once, and again for an address in a
 * module loaded since (dlopen). */
static int report_modules(void)
{
	if (!srcnames.dwfl && !srcnames.failed && !(srcnames.dwfl = dwfl_begin(&callbacks)))
		srcnames.failed = 1;
	if (!srcnames.dwfl)
		return 0;
	tly_rt_symindex_free(&srcnames.syms);   /* its modules may go with the new report */
	dwfl_report_begin(srcnames.dwfl);
	if (dwfl_linux_proc_report(srcnames.dwfl, getpid()) != 0) {
		dwfl_report_end(srcnames.dwfl, NULL, NULL);
		return 0;
	}
	return dwfl_report_end(srcnames.dwfl, NULL, NULL) == 0;
}

/* Name of a subprogram or inlined instance (through abstract origins). */
static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *s = NULL;

	if (dwarf_attr_integrate(die, DW_AT_name, &a))
		s = dwarf_formstring(&a);
	return s ? s : "?";
}

static int die_uint(Dwarf_Die *die, int at, Dwarf_Word *v)
{
	Dwarf_Attribute a;

	return dwarf_attr(die, at, &a) && dwarf_formudata(&a, v) == 0;
}

/* A function GCC outlined for an OpenMP construct, "main._omp_fn.0",
 * is named after the function its source is in ("main"). */
static const char *user_name(Dwarf_Die *die, char *buf, size_t len)
{
	const char *s = die_name(die), *cut = strstr(s, "._omp_fn.");

	if (!cut)
		return s;
	snprintf(buf, len, "%.*s", (int)(cut - s), s);
	return buf;
}

/* Append " in outer (file:line)" for each function `scopes` nests the
 * innermost one in (inlined call sites); n = scopes found. */
static size_t outer_frames(Dwarf_Die *cu, Dwarf_Die *scopes, int n, char *out, size_t len, size_t at)
{
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	Dwarf_Word cfile = 0, cline = 0;
	int inl = 0;

	dwarf_getsrcfiles(cu, &files, &nfiles);
	for (int i = 0; i < n && at < len; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine)
			continue;
		if (inl) {   /* this function called the inlined one at cfile:cline */
			const char *f = files && cfile < nfiles ? dwarf_filesrc(files, cfile, NULL, NULL) : NULL;

			char fn[TLY_RT_NAME];

			at += (size_t)snprintf(out + at, len - at, " in %s (%s:%lu)",
					       user_name(&scopes[i], fn, sizeof fn), base_name(f),
					       (unsigned long)cline);
		}
		inl = tag == DW_TAG_inlined_subroutine;
		if (inl && !(die_uint(&scopes[i], DW_AT_call_file, &cfile)
			     && die_uint(&scopes[i], DW_AT_call_line, &cline)))
			break;
		if (!inl)
			break;   /* the out-of-line function ends the chain */
	}
	return at;
}

/* The compilation unit holding address a, with its source file and line.
 * libdwfl finds the unit through .debug_aranges, which clang (and the
 * LLVM-based icx, ifx, AMD compilers) does not emit: then the units are
 * searched by their own address ranges, and the line comes from the
 * unit's line table. */
static Dwarf_Die *unit_of(Dwfl_Module *m, Dwarf_Addr a, Dwarf_Addr *bias, const char **file, int *lineno)
{
	Dwfl_Line *dl;
	Dwarf_Line *l;
	Dwarf_Die *cu = dwfl_module_addrdie(m, a, bias);

	if (cu && (dl = dwfl_module_getsrc(m, a)))
		return (*file = dwfl_lineinfo(dl, NULL, lineno, NULL, NULL, NULL)) ? cu : NULL;
	cu = NULL;
	while ((cu = dwfl_module_nextcu(m, cu, bias)) && dwarf_haspc(cu, a - *bias) != 1)
		;
	if (!cu || !(l = dwarf_getsrc_die(cu, a - *bias)) || dwarf_lineno(l, lineno) != 0)
		return NULL;
	return (*file = dwarf_linesrc(l, NULL, NULL)) ? cu : NULL;
}

/* DWARF name of the code at `pc`; 0 without debug information.  The
 * unit's function instances are indexed once (rt_scopes.c): an address's
 * chain is its innermost instance and its callers up to the function they
 * are inlined into, and a function GCC outlined for an OpenMP construct
 * (main._omp_fn.0, its DIE nested in main's, its code outside main's
 * ranges) is found there too. */
#define MAX_CHAIN 64
static int dwarf_name(const void *pc, char *out, size_t len)
{
	Dwarf_Addr a = (Dwarf_Addr)(uintptr_t)pc, bias = 0;
	Dwfl_Module *m;
	Dwarf_Die *cu, chain[MAX_CHAIN], outer;
	const char *file, *name;
	int lineno = 0, n, has_outer = 0;
	size_t at;
	char fn[TLY_RT_NAME];

	if (!srcnames.dwfl && !report_modules())
		return 0;
	if (!(m = dwfl_addrmodule(srcnames.dwfl, a)) && (!report_modules() || !(m = dwfl_addrmodule(srcnames.dwfl, a))))
		return 0;
	if (!(cu = unit_of(m, a, &bias, &file, &lineno)))
		return 0;
	n = tly_rt_scopes_at(&srcnames.sx, cu, a - bias, chain, MAX_CHAIN, &outer, &has_outer);
	if (n <= 0)
		return 0;
	/* an outlined OpenMP body is named after the function its DIE is in
	 * (a Fortran program's DWARF name, not its symbol MAIN__) */
	if (n == 1 && has_outer && strstr(die_name(&chain[0]), "._omp_fn."))
		name = die_name(&outer);
	else
		name = user_name(&chain[0], fn, sizeof fn);
	at = (size_t)snprintf(out, len, "%s (%s:%d)", name, base_name(file), lineno);
	if (at < len)
		outer_frames(cu, chain, n, out, len, at);
	return 1;
}
#endif

#ifdef TALLY_HAVE_LIBDW
/* "symbol+0xoffset" of the code at `at` from its module's symbol table
 * (the offset of `pc`, the address given); 0 when no symbol holds it. */
static int elf_symbol_name(const void *pc, const void *at, char *out, size_t len)
{
	Dwarf_Addr a = (Dwarf_Addr)(uintptr_t)at;
	Dwfl_Module *m;
	Dwarf_Addr off = 0;
	const char *s;

	if (!srcnames.dwfl && !report_modules())
		return 0;
	if (!(m = dwfl_addrmodule(srcnames.dwfl, a)) && (!report_modules() || !(m = dwfl_addrmodule(srcnames.dwfl, a))))
		return 0;
	s = tly_rt_symindex_name(&srcnames.syms, m, a, &off);
	if (!s || !*s)
		return 0;
	snprintf(out, len, "%s+0x%lx", s, (unsigned long)(off + (uintptr_t)((const char *)pc - (const char *)at)));
	return 1;
}
#endif

void tly_rt_name_with_address(char *buf, size_t len, const char *label, const char *src, const char *raw)
{
	snprintf(buf, len, "%s @ %s%c%s", label, src, TLY_RT_ADDR_SEP, raw);
}

/* CPU time spent naming, under its own lock (the names' lock may be held
 * for a long first read of a module's DWARF). */
static struct {
	pthread_mutex_t lock;
	int64_t ns;
} named = { .lock = PTHREAD_MUTEX_INITIALIZER };

int tly_rt_srcname(const void *pc, int is_return, char *name, size_t nlen, char *raw, size_t rlen)
{
	/* a return address is the instruction after the call: look up the call */
	const void *at = is_return && pc ? (const char *)pc - 1 : pc;
	int ok = 0, sym = 0;   /* DWARF's name; the symbol table's */
	int64_t t0 = tly_rt_thread_cpu_ns();   /* CPU: a preempted rank's wall time is not Tally's */

	raw_name(pc, raw, rlen);
#ifdef TALLY_HAVE_LIBDW
	pthread_mutex_lock(&srcnames.lock);
	ok = pc && dwarf_name(at, name, nlen);
	sym = !ok && pc && elf_symbol_name(pc, at, name, nlen);
	pthread_mutex_unlock(&srcnames.lock);
#endif
	if (!ok && !sym)
		symbol_name(pc, name, nlen, raw);
	pthread_mutex_lock(&named.lock);
	named.ns += tly_rt_thread_cpu_ns() - t0;
	pthread_mutex_unlock(&named.lock);
	return ok;
}

int64_t tly_rt_srcname_ns(void)
{
	int64_t ns;

	pthread_mutex_lock(&named.lock);
	ns = named.ns;
	pthread_mutex_unlock(&named.lock);
	return ns;
}

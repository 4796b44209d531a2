/*
 * rt_libomp.c - GCC/gfortran OpenMP programs on LLVM's libomp, when the
 * user asks for it (TALLY_LIBOMP=auto or a path; default off).
 *
 * By default a GCC OpenMP program keeps GNU libgomp and is measured inside
 * it (wrappers/gomp/: the preload defines libgomp's GOMP_* entry points).
 * Asked for, this runs the program on libomp instead, measured by the OMPT
 * tool: that changes the runtime the program runs on (libomp's waiting and
 * scheduling, not libgomp's; CP2K 2 ranks x 2 threads ran 2.7x slower so),
 * so it is never the default.  LLVM's libomp implements libgomp's ABI (the
 * same GOMP_* and omp_* symbols with libgomp's symbol versions); a
 * preloaded object comes before every DT_NEEDED one in the global scope,
 * and a versioned reference binds to the first object that defines the
 * version, whatever file name the reference was recorded with; so
 * preloading libomp after Tally makes every GOMP_* call Tally forwards,
 * and every omp_* call, land in libomp however libgomp was found
 * (DT_RPATH written by Spack's compiler wrapper, DT_RUNPATH, a module's
 * LD_LIBRARY_PATH).  libgomp stays loaded but is never called.
 *
 * The symbols of the program are bound before any constructor runs, so a
 * process that finds itself on libgomp re-executes itself (same pid, same
 * arguments and descriptors, nothing measured yet, before MPI_Init) with
 * libomp added to LD_PRELOAD.  Where that cannot be done one message says
 * so; the program then runs on libgomp, measured inside it.  Only a
 * libgomp linked into the program itself cannot be measured: then one
 * warning says its worker threads are not (ranks.cpu_ns still holds the
 * whole process's CPU time).
 */
#include "runtime/rt.h"
#include "runtime/rt_srcname.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sched.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tally_shared.h"

#define MARK "TALLY_INTERNAL_LIBOMP_PID"

struct gomp_probe {
	char gomp[512];       /* path of a GNU libgomp loaded in the process */
	char below[512];      /* the object Tally's GOMP_parallel forwards to */
	int on_libomp;        /* that object is LLVM's libomp */
	int in_program;       /* omp_* are defined by the program itself (static libgomp) */
	int past_tally;       /* the walk of the loaded objects has passed Tally's */
	uintptr_t tally;      /* Tally's load address */
};

/* 1 when the object at `path` is LLVM's libomp (under any name). */
static int is_libomp(const char *path)
{
	void *h = dlopen(path && *path ? path : NULL, RTLD_LAZY | RTLD_NOLOAD);
	int r = h && dlsym(h, "__kmpc_fork_call") != NULL;

	if (h)
		dlclose(h);
	return r;
}

static int find_gomp(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct gomp_probe *p = arg;
	const char *base = strrchr(info->dlpi_name, '/');

	(void)size;
	base = base ? base + 1 : info->dlpi_name;
	p->past_tally |= info->dlpi_addr == p->tally;
	if (strncmp(base, "libgomp", 7) && strncmp(base, "libomp", 6))
		return 0;
	if (is_libomp(info->dlpi_name))
		p->on_libomp |= !p->past_tally;   /* libomp preloaded in front of Tally */
	else if (!p->gomp[0])
		snprintf(p->gomp, sizeof p->gomp, "%s", info->dlpi_name);
	return 0;
}

/* Which OpenMP runtime the process's GOMP_* calls reach: LLVM's libomp
 * when it is loaded in front of Tally (the program's calls bind to it) or
 * when Tally's own GOMP_* wrappers forward to it (RTLD_NEXT from here,
 * whatever another preloaded library in front of Tally defines). */
static void probe(struct gomp_probe *p)
{
	Dl_info di, self;
	void *f = dlsym(RTLD_NEXT, "GOMP_parallel"), *o = dlsym(RTLD_DEFAULT, "omp_get_num_threads");

	memset(p, 0, sizeof *p);
	if (dladdr((void *)probe, &self))
		p->tally = (uintptr_t)self.dli_fbase;
	dl_iterate_phdr(find_gomp, p);
	if (f && dladdr(f, &di) && di.dli_fname) {
		snprintf(p->below, sizeof p->below, "%s", di.dli_fname);
		p->on_libomp |= is_libomp(di.dli_fname);
	}
	/* no libgomp.so, yet omp_* defined by neither libomp nor Tally: linked in */
	if (!p->gomp[0] && o && dladdr(o, &di) && (uintptr_t)di.dli_fbase != p->tally
	    && !is_libomp(di.dli_fname))
		snprintf(p->gomp, sizeof p->gomp, "%s (linked in statically)", di.dli_fname);
	p->in_program = strstr(p->gomp, "statically") != NULL;
}

static int readable_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, R_OK);
}

/* libomp to preload: the setting (a .so or a directory holding one), else
 * the one Tally was configured with, else the link installed next to the
 * preload library.  0 when none is found. */
static int find_libomp(const char *how, char *out, size_t len)
{
	static const char *const names[] = { "libomp.so.5", "libomp.so", "libgomp.so.1" };
	char dir[512] = "";
	Dl_info di;

	if (*how && strcasecmp(how, "auto")) {
		if (readable_file(how))
			return snprintf(out, len, "%s", how) < (int)len;
		snprintf(dir, sizeof dir, "%s", how);
	}
	for (size_t i = 0; *dir && i < sizeof names / sizeof *names; i++)
		if (snprintf(out, len, "%s/%s", dir, names[i]) < (int)len && readable_file(out))
			return 1;
	if (*dir)
		return 0;
#ifdef TALLY_LIBOMP_PATH
	if (readable_file(TALLY_LIBOMP_PATH))
		return snprintf(out, len, "%s", TALLY_LIBOMP_PATH) < (int)len;
#endif
	if (dladdr((void *)find_libomp, &di) && di.dli_fname) {
		const char *slash = strrchr(di.dli_fname, '/');

		snprintf(out, len, "%.*s/tally/libomp-as-libgomp/libgomp.so.1",
			 slash ? (int)(slash - di.dli_fname) : 1, slash ? di.dli_fname : ".");
		return readable_file(out);
	}
	return 0;
}

/* This process's arguments, NULL-terminated (from /proc/self/cmdline). */
static char **own_argv(void)
{
	size_t cap = 4096, n = 0, argc = 0;
	char *buf = malloc(cap), **argv;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t r;

	while (buf && fd >= 0 && (r = read(fd, buf + n, cap - n - 1)) > 0)
		if ((n += (size_t)r) + 1 == cap) {
			char *b = realloc(buf, cap *= 2);

			if (!b)
				break;
			buf = b;
		}
	if (fd >= 0)
		close(fd);
	if (!buf || !n) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	for (size_t i = 0; i < n; i++)
		argc += !buf[i];
	argv = calloc(argc + 1, sizeof *argv);
	for (size_t i = 0, a = 0; argv && i < n; i += strlen(buf + i) + 1)
		argv[a++] = buf + i;
	return argv;
}

/* libomp's waiting, chosen like libgomp's when the user set none: a worker
 * waiting at a barrier spins 200 ms under libomp (KMP_BLOCKTIME) against
 * libgomp's ~300k spins (well under 1 ms), cut to ~1k spins when there are
 * more threads than CPUs.  On an oversubscribed rank (Open MPI binds each
 * rank to a core) libomp's spinning takes the CPU from the thread it waits
 * for.  So: KMP_BLOCKTIME=0 when the first OMP_NUM_THREADS exceeds the CPUs
 * this process may run on, else 1 ms.  Never set when any of KMP_BLOCKTIME,
 * OMP_WAIT_POLICY, KMP_LIBRARY or GOMP_SPINCOUNT is set. */
static void libgomp_like_wait(void)
{
	static const char *const user[] = { "KMP_BLOCKTIME", "OMP_WAIT_POLICY", "KMP_LIBRARY",
					     "GOMP_SPINCOUNT" };
	const char *nt = tly_env_raw("OMP_NUM_THREADS");
	cpu_set_t set;
	long cpus = 0, threads;

	for (size_t i = 0; i < sizeof user / sizeof *user; i++)
		if (tly_env_raw(user[i]))
			return;
	if (!sched_getaffinity(0, sizeof set, &set))
		cpus = CPU_COUNT(&set);
	threads = nt ? strtol(nt, NULL, 10) : 0;
	setenv("KMP_BLOCKTIME", cpus > 0 && threads > cpus ? "0" : "1", 0);
}

/* Where in LD_PRELOAD `lib` goes: just before Tally's preload library,
 * so libomp's GOMP_* come before Tally's own (which would forward to it,
 * but then libomp's OMPT would name every region after the wrapper that
 * called it) and after a library the user preloads in front of Tally
 * (the apps tests' counters); at the end when Tally is not in the list. */
static size_t insert_at(const char *old)
{
	size_t at = 0;

	while (old[at]) {
		size_t len = strcspn(old + at, " :");
		const char *slash = memrchr(old + at, '/', len);
		const char *base = slash ? slash + 1 : old + at;

		if ((size_t)(old + at + len - base) >= 19 && !strncmp(base, "libtally-preload.so", 19))
			return at;
		at += len;
		at += strspn(old + at, " :");
	}
	return at;
}

/* Run this program again with `lib` added to LD_PRELOAD; returns only on
 * failure. */
static void reexec_with(const char *lib)
{
	const char *old = tly_env_raw("LD_PRELOAD");
	size_t n = strlen(lib) + (old ? strlen(old) : 0) + 2, at = old ? insert_at(old) : 0;
	char *pre = malloc(n), pid[32], **argv = own_argv();

	if (!pre || !argv)
		return;
	if (old && old[at])   /* before Tally's library */
		snprintf(pre, n, "%.*s%s %s", (int)at, old, lib, old + at);
	else
		snprintf(pre, n, "%s%s%s", old && *old ? old : "", old && *old ? " " : "", lib);
	snprintf(pid, sizeof pid, "%ld", (long)getpid());
	if (setenv("LD_PRELOAD", pre, 1) || setenv(MARK, pid, 1))
		return;
	libgomp_like_wait();
	fflush(NULL);
	execv("/proc/self/exe", argv);
	setenv("LD_PRELOAD", old ? old : "", 1);
}

static int rerun(void)
{
	const char *mark = tly_env_raw(MARK);

	return mark && atol(mark) == (long)getpid();
}

static int wants_libomp(const char *how)
{
	return *how && strcasecmp(how, "off") && strcasecmp(how, "no") && strcmp(how, "0");
}

void tly_rt_libomp_switch(const char *how)
{
	struct gomp_probe p;
	char lib[1024], shown[96];   /* the value as said: escaped, cut with "..." (a 10 KB one was echoed whole) */

	tly_quote(how, shown, sizeof shown);
	probe(&p);
	if (p.in_program) {
		if (tly_rt_proc()->opt.ompt)
			tly_rt_log_job(1, "this program has GCC's libgomp linked into it (%s): its OpenMP "
				       "worker threads and parallel regions are not measured (their CPU time "
				       "is only in ranks.cpu_ns, the process's CPU time); link libgomp "
				       "dynamically (the default of gcc -fopenmp) to measure them", p.gomp);
		return;
	}
	if (!p.gomp[0] || p.on_libomp || !wants_libomp(how))
		return;      /* no libgomp, already on libomp, or measured inside libgomp */
	if (rerun()) {
		tly_rt_log_job(1, "TALLY_LIBOMP=%s: preloading LLVM's libomp did not take the place of %s "
			       "(its GOMP_* calls reach %s); the program runs on libgomp, measured inside "
			       "it", shown, p.gomp, p.below);
		return;
	}
	if (!find_libomp(how, lib, sizeof lib)) {
		tly_rt_log_job(1, "TALLY_LIBOMP=%s: %s; the program runs on its own libgomp, measured "
			       "inside it", shown, strcasecmp(how, "auto") ? "names no libomp"
									 : "no LLVM libomp was found");
		return;
	}
	tly_rt_log(2, "running on LLVM libomp (%s) instead of %s, as TALLY_LIBOMP asks", lib, p.gomp);
	reexec_with(lib);
	tly_rt_log_job(1, "TALLY_LIBOMP=%s: re-running the program with libomp preloaded failed; it "
		       "runs on libgomp, measured inside it", shown);
}

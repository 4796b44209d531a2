/*
 * rt_libomp.c - GCC/gfortran OpenMP programs measured without asking.
 *
 * GCC's libgomp has no OMPT, so a program whose GOMP_* and omp_* calls go
 * to libgomp shows only its main thread.  LLVM's libomp implements
 * libgomp's ABI (the same GOMP_* and omp_* symbols with libgomp's symbol
 * versions) and OMPT.  A preloaded object comes before every DT_NEEDED one
 * in the global scope, and a versioned reference binds to the first object
 * that defines the version, whatever file name the reference was recorded
 * with; so preloading libomp makes every GOMP_* and omp_* call land in libomp,
 * however libgomp was found (DT_RPATH written by Spack's compiler wrapper,
 * which beats LD_LIBRARY_PATH, DT_RUNPATH, a module's LD_LIBRARY_PATH).
 * libgomp stays loaded but is never called.
 *
 * The symbols of the program are bound before any constructor runs, so a
 * process that finds itself on libgomp re-executes itself (same pid, same
 * arguments and descriptors, nothing measured yet, before MPI_Init) with
 * libomp added to LD_PRELOAD.  That covers every launch style, the plain
 * `mpirun -x LD_PRELOAD=libtally-preload.so` one included.  Where it
 * cannot be done one warning says which threads go unmeasured and how to
 * fix it; ranks.cpu_ns still holds the whole process's CPU time.
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
	char gomp[512];       /* path of a GNU libgomp in the process */
	int used;             /* GOMP_* resolves to GNU libgomp (or a static copy) */
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
	if (!strncmp(base, "libgomp.so", 10) && !is_libomp(info->dlpi_name))
		snprintf(p->gomp, sizeof p->gomp, "%s", info->dlpi_name);
	return 0;
}

/* Which OpenMP runtime the process's GOMP_* calls reach. */
static void probe(struct gomp_probe *p)
{
	static const char *const entry[] = { "GOMP_parallel", "GOMP_parallel_start",
					     "omp_get_num_threads" };
	Dl_info di;

	memset(p, 0, sizeof *p);
	dl_iterate_phdr(find_gomp, p);
	for (size_t i = 0; i < sizeof entry / sizeof *entry; i++) {
		void *f = dlsym(RTLD_DEFAULT, entry[i]);

		if (!f || !dladdr(f, &di))
			continue;
		p->used = !is_libomp(di.dli_fname);
		if (p->used && !p->gomp[0])
			snprintf(p->gomp, sizeof p->gomp, "%s (linked in statically)", di.dli_fname);
		return;
	}
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

/* Run this program again with `lib` added to LD_PRELOAD; returns only on
 * failure. */
static void reexec_with(const char *lib)
{
	const char *old = tly_env_raw("LD_PRELOAD");
	size_t n = strlen(lib) + (old ? strlen(old) : 0) + 2;
	char *pre = malloc(n), pid[32], **argv = own_argv();

	if (!pre || !argv)
		return;
	snprintf(pre, n, "%s%s%s", old && *old ? old : "", old && *old ? " " : "", lib);
	snprintf(pid, sizeof pid, "%ld", (long)getpid());
	if (setenv("LD_PRELOAD", pre, 1) || setenv(MARK, pid, 1))
		return;
	libgomp_like_wait();
	fflush(NULL);
	execv("/proc/self/exe", argv);
	setenv("LD_PRELOAD", old ? old : "", 1);
}

static void warn_unmeasured(const struct gomp_probe *p, const char *why, int off)
{
	tly_rt_log_job(1, "this program runs OpenMP on GCC's libgomp (%s), which has no OMPT: %s, so its "
		       "OpenMP worker threads and parallel regions are not measured (their CPU time is "
		       "only in ranks.cpu_ns, the process's CPU time). To measure them %s", p->gomp, why,
		       off ? "leave TALLY_LIBOMP at 'auto' (tally-run --libomp=auto)"
			   : "install LLVM's libomp (Debian: libomp-dev) or give its path: "
			     "TALLY_LIBOMP=/path/to/libomp.so.5 (tally-run --libomp=...)");
}

static int rerun(void)
{
	const char *mark = tly_env_raw(MARK);

	return mark && atol(mark) == (long)getpid();
}

void tly_rt_libomp_switch(const char *how)
{
	struct gomp_probe p;
	const char *why = NULL;
	char lib[1024];
	int off = !strcasecmp(how, "off") || !strcasecmp(how, "no") || !strcmp(how, "0");

	probe(&p);
	if (!p.used)
		return;
	if (off)
		why = "TALLY_LIBOMP=off";
	else if (rerun())
		why = "preloading LLVM's libomp did not take its place";
	else if (strstr(p.gomp, "statically"))
		why = "it is linked into the program";
	else if (!find_libomp(how, lib, sizeof lib))
		why = *how && strcasecmp(how, "auto") ? "TALLY_LIBOMP names no libomp"
						      : "no LLVM libomp was found";
	if (!why) {
		tly_rt_log(2, "running on LLVM libomp (%s) instead of %s", lib, p.gomp);
		reexec_with(lib);
		why = "re-running the program with libomp preloaded failed";
	}
	warn_unmeasured(&p, why, off);
}

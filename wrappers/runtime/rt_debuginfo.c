/*
 * rt_debuginfo.c - module files and separate debug information for
 * Tally's libdwfl sessions, found on this machine only (rt_debuginfo.h).
 *
 * The sampling drain reads the modules it unwinds, it does not map them:
 * libdwfl's dwfl_linux_proc_find_elf leaves a module's file to libelf's
 * ELF_C_READ_MMAP_PRIVATE, a private writable map from offset 0, a second
 * map of a library or program the process runs (libtally-preload.so for
 * Tally's OpenMP trampoline, the program for its frames).  `perf record
 * --call-graph dwarf` of a program Tally samples records those maps, and
 * its unwinding stopped at them: LULESH 1 x 2 at 1 kHz under perf, 67%
 * of perf's samples reached main or start_thread with Tally sampling
 * (stopping at the trampoline and at "[stack]"); 91-99% after, as
 * without Tally's sampling (docs/sampling.md).  A read-only map
 * (ELF_C_READ_MMAP) misled perf the same way (99% of its samples
 * unrooted).  The naming of regions and call sites (rt_srcname.c) keeps
 * libdwfl's map: perf unwound through a program mapped there, and a
 * default run pays no read of the program's DWARF.  Reading has a budget
 * (64 MiB of files a process): libdw reads all of a module's DWARF
 * sections when it opens it, on the heap of every rank, where a map's
 * pages are the page cache's; past it a module is mapped.  The file read
 * must be the one mapped at the module's base (device and inode in
 * /proc/self/maps, read once after each report of the modules): a name a
 * neighbour swapped since the load is not read.
 *
 * libdwfl's dwfl_standard_find_debuginfo ends, for a module with a build
 * ID whose debug information is found neither in the module, nor by its
 * build ID, nor by its .gnu_debuglink, at debuginfod: libdw dlopens
 * libdebuginfod, whose debuginfod_begin initialises libcurl (and through
 * it libssh2 and OpenSSL), whether DEBUGINFOD_URLS is set or not
 * (elfutils 0.188).  In a measured process that happened on Tally's
 * sampling drain thread, at any moment (the first sample whose unwinding
 * needed a module's .debug_frame: Debian's libc has none on the machine),
 * and at the write too: Tally's exit handler runs after the libraries'
 * destructors (rt_exit.c), so OpenSSL was initialised again after its
 * OPENSSL_cleanup had run, beside the writing thread: the program ended
 * in a SIGSEGV on a NULL OpenSSL lock (the drain thread in
 * dwfl_module_dwarf_cfi -> debuginfod_begin -> curl_global_init ->
 * libssh2_init -> OPENSSL_init_crypto) or a glibc "double free" abort,
 * 1 run in 20-30 of sampling_loss's shape with the perf source
 * (docs/sampling.md).  A measurement library does not open network
 * clients in the program either.  So: the module, its build ID (the
 * debug directories' .build-id trees, as Debian's dbgsym packages
 * install) and, for a module without a build ID, the standard search
 * (which without a build ID does not reach debuginfod).  Not found: a
 * module with a build ID whose debug file is only reachable by its
 * .gnu_debuglink name (names fall back to its symbol table).
 */
#include "runtime/rt_debuginfo.h"

#ifdef TALLY_HAVE_LIBDW
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* The bytes of module files read so far: each module libdw opens has all
 * its DWARF sections read then (on the heap, where a map's pages would
 * be the page cache's, shared, and touched only where used), so past
 * READ_BUDGET a module is mapped as libdwfl does. */
#define READ_BUDGET (64L << 20)
static _Atomic long read_bytes;

/* The file-backed maps of the process, read once after each report of
 * its modules (tly_rt_find_elf_forget): reading /proc/self/maps for every
 * module cost the drain ~20 ms a process in Debian's cp2k sampled at 1 kHz
 * (~60 modules, hundreds of maps, each line's path made by the kernel). */
static struct {
	pthread_mutex_t lock;
	struct mapent { unsigned long lo, hi, ino; dev_t dev; } *e;
	int n, cap, valid;
} maps = { .lock = PTHREAD_MUTEX_INITIALIZER };

void tly_rt_find_elf_forget(void)
{
	pthread_mutex_lock(&maps.lock);
	maps.valid = 0;
	pthread_mutex_unlock(&maps.lock);
}

static void read_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[PATH_MAX + 128];
	unsigned long lo, hi, inode;
	unsigned int maj, mi;

	maps.n = 0;
	maps.valid = f != NULL;
	while (f && fgets(line, sizeof line, f)) {
		if (sscanf(line, "%lx-%lx %*s %*s %x:%x %lu", &lo, &hi, &maj, &mi, &inode) != 5 || !inode)
			continue;
		if (maps.n == maps.cap) {
			int cap = maps.cap ? maps.cap * 2 : 256;
			struct mapent *g = realloc(maps.e, sizeof *g * (size_t)cap);

			if (!g) {
				maps.valid = 0;   /* read again next time */
				break;
			}
			maps.e = g;
			maps.cap = cap;
		}
		maps.e[maps.n++] = (struct mapent){ .lo = lo, .hi = hi, .ino = inode, .dev = makedev(maj, mi) };
	}
	if (f)
		fclose(f);
}

/* The device and inode of the file mapped at addr (the maps as read since
 * the last report of the modules, so no older than the module's name); 0,
 * or -1 when no file is mapped there. */
static int mapped_id(Dwarf_Addr addr, dev_t *dev, ino_t *ino)
{
	int rc = -1;

	pthread_mutex_lock(&maps.lock);
	if (!maps.valid)
		read_maps();
	for (int i = 0; i < maps.n && rc; i++)
		if (addr >= maps.e[i].lo && addr < maps.e[i].hi) {
			*dev = maps.e[i].dev;
			*ino = (ino_t)maps.e[i].ino;
			rc = 0;
		}
	pthread_mutex_unlock(&maps.lock);
	return rc;
}

/* A regular file opened without blocking (a FIFO or a device named in the
 * maps must never hang the drain or the exit), the very file mapped at the
 * module's base (a name swapped since the load is not read: -1), that fits
 * what is left of the budget is read; anything else goes to libdwfl's
 * callback. */
int tly_rt_find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base, char **file_name,
		    Elf **elfp)
{
	struct stat st;
	Elf *e = NULL;
	char *name;
	dev_t dev;
	ino_t ino;
	long size = 0;
	int fd = modname && modname[0] == '/' ? open(modname, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;

	if (fd >= 0) {
		if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || mapped_id(base, &dev, &ino) != 0 || st.st_dev != dev
		    || st.st_ino != ino) {
			close(fd);
			errno = ESTALE;
			return -1;
		}
		if (st.st_size <= READ_BUDGET) {
			size = (long)st.st_size;
			if (atomic_fetch_add(&read_bytes, size) + size > READ_BUDGET) {
				atomic_fetch_sub(&read_bytes, size);
				size = 0;
			}
		}
		if (size && (e = elf_begin(fd, ELF_C_READ, NULL)) && elf_kind(e) == ELF_K_ELF
		    && (name = strdup(modname))) {
			*file_name = name;
			*elfp = e;
			return fd;
		}
		if (e)
			elf_end(e);
		if (size)
			atomic_fetch_sub(&read_bytes, size);
		close(fd);
	}
	return dwfl_linux_proc_find_elf(mod, userdata, modname, base, file_name, elfp);
}

int tly_rt_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			  char **debuginfo_file_name)
{
	const unsigned char *bits = NULL;
	GElf_Addr vaddr;
	int fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
					      debuglink_crc, debuginfo_file_name);

	if (fd >= 0 || dwfl_module_build_id(mod, &bits, &vaddr) > 0)
		return fd;
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name, debuglink_file,
					    debuglink_crc, debuginfo_file_name);
}
#endif

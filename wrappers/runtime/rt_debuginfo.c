/*
 * rt_debuginfo.c - module files and separate debug information for
 * Tally's libdwfl sessions, found on this machine only (rt_debuginfo.h).
 *
 * A module's file is read, not mapped: libdwfl's dwfl_linux_proc_find_elf
 * leaves the file to libelf's ELF_C_READ_MMAP_PRIVATE, a private writable
 * map from offset 0 of, for the unwinding of Tally's own frames, the very
 * libtally-preload.so the process runs.  `perf record --call-graph dwarf`
 * of a program Tally samples records that map as one of the library's,
 * and its unwinding stopped at Tally's OpenMP trampoline: LULESH 1 x 2 at
 * 1 kHz under perf, 67% of perf's samples reached main or start_thread
 * with Tally sampling against 84% without (30 Nov 2026, docs/sampling.md).
 * libelf reads a section when libdw asks for it, no more.
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
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A regular file only, opened without blocking (a FIFO or a device named
 * in the maps must never hang the drain or the exit), as libdwfl's own
 * callback checks; anything else ("[vdso]", a deleted file, a file that
 * is not ELF) goes to libdwfl's callback. */
int tly_rt_find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base, char **file_name,
		    Elf **elfp)
{
	struct stat st;
	Elf *e = NULL;
	char *name;
	int fd = modname && modname[0] == '/' ? open(modname, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;

	if (fd >= 0) {
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (e = elf_begin(fd, ELF_C_READ, NULL))
		    && elf_kind(e) == ELF_K_ELF && (name = strdup(modname))) {
			*file_name = name;
			*elfp = e;
			return fd;
		}
		if (e)
			elf_end(e);
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

#include "core/exeinfo.h"

#include <limits.h>
#include <stdint.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"

/*
 * The main program is the first object dl_iterate_phdr reports.  Its
 * PT_LOAD headers are the truth the linker wrote: the executable segment
 * is the text, the writable one holds .data (file-backed part, p_filesz)
 * followed by .bss (p_memsz beyond p_filesz).
 */
static int main_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	PAPI_address_map_t *m = arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		char *start = (char *)(uintptr_t)(info->dlpi_addr + ph->p_vaddr);

		if (ph->p_type != PT_LOAD)
			continue;
		if ((ph->p_flags & PF_X) && !m->text_start) {
			m->text_start = start;
			m->text_end = start + ph->p_memsz;
		} else if ((ph->p_flags & PF_W) && !m->data_start) {
			m->data_start = start;
			m->data_end = start + ph->p_filesz;
			m->bss_start = start + ph->p_filesz;
			m->bss_end = start + ph->p_memsz;
		}
	}
	return 1; /* stop after the first object */
}

/* Bounded copy: a path longer than the PAPI field is cut, never overrun. */
static void copy_str(char *dst, size_t cap, const char *src)
{
	size_t n = strnlen(src, cap - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

int tly_exe_fill(PAPI_exe_info_t *exe)
{
	char path[PATH_MAX];
	const char *base;

	memset(exe, 0, sizeof *exe);
	dl_iterate_phdr(main_object, &exe->address_info);
	if (!realpath("/proc/self/exe", path))
		return tly_err_set(PAPI_ESYS, "Cannot resolve /proc/self/exe (%s); "
				   "executable name unknown.", strerror(errno));
	copy_str(exe->fullname, sizeof exe->fullname, path);
	base = strrchr(exe->fullname, '/');
	copy_str(exe->address_info.name, sizeof exe->address_info.name,
		 base ? base + 1 : exe->fullname);
	return PAPI_OK;
}

/*
 * sym_util.h - address range of a function of this program, from the ELF
 * symbol table of /proc/self/exe (st_value, st_size) plus the load bias
 * of the main object (PIE), as ground truth for PC-based tests.
 */
#ifndef TALLY_SYM_UTIL_H
#define TALLY_SYM_UTIL_H

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int sym_bias_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uintptr_t *)arg = (uintptr_t)info->dlpi_addr;
	return 1; /* the first object is the program */
}

/* [*lo, *hi) of function `name`; 0 on success, -1 when not found. */
static inline int sym_range(const char *name, uintptr_t *lo, uintptr_t *hi)
{
	int fd = open("/proc/self/exe", O_RDONLY), rc = -1;
	struct stat st;
	uintptr_t bias = 0;
	const unsigned char *m;

	if (fd < 0 || fstat(fd, &st) < 0)
		return -1;
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -1;
	dl_iterate_phdr(sym_bias_cb, &bias);
	const ElfW(Ehdr) *eh = (const void *)m;
	const ElfW(Shdr) *sh = (const void *)(m + eh->e_shoff);
	for (int s = 0; s < eh->e_shnum && rc; s++) {
		if (sh[s].sh_type != SHT_SYMTAB)
			continue;
		const ElfW(Sym) *sym = (const void *)(m + sh[s].sh_offset);
		const char *str = (const char *)(m + sh[sh[s].sh_link].sh_offset);
		for (size_t k = 0; k < sh[s].sh_size / sizeof *sym; k++)
			if (ELF64_ST_TYPE(sym[k].st_info) == STT_FUNC && !strcmp(str + sym[k].st_name, name)) {
				*lo = bias + sym[k].st_value;
				*hi = *lo + sym[k].st_size;
				rc = 0;
				break;
			}
	}
	munmap((void *)m, (size_t)st.st_size);
	return rc;
}

#endif /* TALLY_SYM_UTIL_H */

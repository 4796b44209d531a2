/*
 * cuda_pcsamp_elf.c - does a cubin carry line information?  A cubin is an
 * ELF64 file; code built with -lineinfo (or -G) has a ".debug_line"
 * section, and without one cuptiGetSassToSourceCorrelation has no line to
 * give for its PCs.  Reading the section headers costs microseconds,
 * copying a framework's cubin milliseconds (PyTorch's first step loads
 * sixteen of 0.5-14 MB, none built with -lineinfo), so PC sampling keeps
 * only cubins that can name source lines.
 */
#include "cuda_pcsamp_internal.h"

#include <elf.h>
#include <string.h>

/* Section header i of the image into *sh (copied: the image need not be
 * aligned); -1 when it lies outside the image. */
static int section(const unsigned char *b, size_t size, const Elf64_Ehdr *eh, unsigned i, Elf64_Shdr *sh)
{
	uint64_t off = eh->e_shoff + (uint64_t)i * sizeof *sh;

	if (eh->e_shoff > size || off > size || size - off < sizeof *sh)
		return -1;
	memcpy(sh, b + off, sizeof *sh);
	return 0;
}

int tly_pcs_cubin_has_lines(const void *cubin, size_t size)
{
	static const char want[] = ".debug_line";
	const unsigned char *b = cubin;
	Elf64_Shdr strs, sh;
	Elf64_Ehdr eh;

	if (!b || size < sizeof eh || memcmp(b, ELFMAG, SELFMAG) || b[EI_CLASS] != ELFCLASS64)
		return -1;
	memcpy(&eh, b, sizeof eh);
	if (eh.e_shentsize != sizeof sh || eh.e_shstrndx >= eh.e_shnum ||
	    section(b, size, &eh, eh.e_shstrndx, &strs) != 0 ||
	    strs.sh_offset > size || strs.sh_size > size - strs.sh_offset)
		return -1;
	for (unsigned i = 0; i < eh.e_shnum; i++) {
		if (section(b, size, &eh, i, &sh) != 0)
			return -1;
		if (sh.sh_name < strs.sh_size && strs.sh_size - sh.sh_name >= sizeof want &&
		    !memcmp(b + strs.sh_offset + sh.sh_name, want, sizeof want))
			return 1;
	}
	return 0;
}

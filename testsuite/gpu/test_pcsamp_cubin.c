/*
 * test_pcsamp_cubin.c - what PC sampling keeps of a loaded cubin, without
 * a GPU (libcupti's CRC and SASS-to-source functions are host code).
 * Ground truth: the build made the two cubins from pcsamp_kernels.cu, one
 * with -lineinfo, one without; the hot loop of pcs_fma lies between the
 * source's PCS_FMA_BEGIN and PCS_FMA_END markers (their line numbers come
 * from CMake).
 *   gpu_pcsamp_cubin LINEINFO.cubin PLAIN.cubin
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tharness.h"
#include "components/cuda/pcsamp/cuda_pcsamp_internal.h"

static unsigned char *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (b = malloc((size_t)n)) != NULL && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	*size = b ? (size_t)n : 0;
	fclose(f);
	return b;
}

static uint64_t crc_of(const void *cubin, size_t size)
{
	CUpti_GetCubinCrcParams p = { .size = CUpti_GetCubinCrcParamsSize };

	p.cubin = cubin;
	p.cubinSize = size;
	return tly_cu_pcs_fns(NULL)->cuptiGetCubinCrc(&p) == CUPTI_SUCCESS ? p.cubinCrc : 0;
}

/* Images this code must not take for an ELF64 cubin it can read. */
static void check_malformed(const unsigned char *li, size_t n)
{
	unsigned char *b = malloc(n);
	uint64_t off;

	TH_EQ(tly_pcs_cubin_has_lines(li, 16), -1);          /* cut inside the ELF header */
	TH_EQ(tly_pcs_cubin_has_lines(li, n / 2), -1);       /* the section headers are at the end */
	TH_EQ(tly_pcs_cubin_has_lines("#!/bin/sh\n", 10), -1);
	TH_EQ(tly_pcs_cubin_has_lines(NULL, n), -1);
	if (!b)
		TH_FATAL("out of memory");
	memcpy(b, li, n);
	off = (uint64_t)-64;   /* e_shoff: the headers' offset overflows */
	memcpy(b + 0x28, &off, sizeof off);
	TH_EQ(tly_pcs_cubin_has_lines(b, n), -1);
	memcpy(b, li, n);
	b[4] = 1;              /* ELFCLASS32 */
	TH_EQ(tly_pcs_cubin_has_lines(b, n), -1);
	free(b);
}

/* Some PC of pcs_fma maps to a line of its hot loop in pcsamp_kernels.cu. */
static void check_lines(uint64_t crc)
{
	int in_loop = 0, found = 0, not_found = 0, left = 0;

	for (uint64_t pc = 0; pc < 4096; pc += 16) {
		char *file = NULL;
		uint32_t line = 0;

		if (tly_pcs_source(crc, "_Z7pcs_fmaPfiffPx", pc, &file, &line) == 0) {
			found++;
			if (!file || !strstr(file, "pcsamp_kernels.cu"))
				TH_CHECK(!"a PC of pcs_fma maps to another file");
			in_loop += line >= PCS_FMA_BEGIN && line <= PCS_FMA_END;
		} else {
			not_found++;
			left += file != NULL;   /* a PC without a line leaves no string to free */
		}
		free(file);
	}
	printf("pcs_fma: %d PCs with a line, %d in the hot loop (lines %d-%d), %d without\n", found, in_loop,
	       PCS_FMA_BEGIN, PCS_FMA_END, not_found);
	TH_CHECK(found > 0);
	TH_CHECK(in_loop > 0);
	TH_CHECK(not_found > 0);   /* past the function's end */
	TH_EQ(left, 0);
}

int main(int argc, char **argv)
{
	unsigned char *li, *plain, *again;
	size_t nli, nplain;
	uint64_t crc_li, crc_plain;

	if (argc != 3)
		TH_FATAL("usage: gpu_pcsamp_cubin LINEINFO.cubin PLAIN.cubin");
	li = slurp(argv[1], &nli);
	plain = slurp(argv[2], &nplain);
	if (!li || !plain)
		TH_FATAL("cannot read the cubins the build made");
	if (!tly_cu_pcs_fns(NULL))
		TH_SKIP("libcupti's PC sampling functions are not available");

	TH_EQ(tly_pcs_cubin_has_lines(li, nli), 1);
	TH_EQ(tly_pcs_cubin_has_lines(plain, nplain), 0);
	check_malformed(li, nli);

	/* kept only with line information, once per distinct image */
	TH_EQ(tly_pcs_cubin_add(plain, nplain), 0);
	TH_EQ(tly_pcs_cubin_count(), 0);
	TH_EQ(tly_pcs_cubin_add(li, nli), 1);
	TH_EQ(tly_pcs_cubin_count(), 1);
	again = malloc(nli);
	if (!again)
		TH_FATAL("out of memory");
	memcpy(again, li, nli);
	TH_EQ(tly_pcs_cubin_add(again, nli), 1);
	TH_EQ(tly_pcs_cubin_count(), 1);

	/* the copy outlives the loader's buffer; its CRC is the image's */
	crc_li = crc_of(li, nli);
	crc_plain = crc_of(plain, nplain);
	TH_CHECK(crc_li != 0 && crc_plain != 0 && crc_li != crc_plain);
	memset(li, 0, nli);
	memset(again, 0, nli);
	check_lines(crc_li);
	{
		char *file = NULL;
		uint32_t line = 0;

		TH_EQ(tly_pcs_source(crc_plain, "_Z7pcs_fmaPfiffPx", 0, &file, &line), -1);
		free(file);
	}
	tly_pcs_cubins_free();
	TH_EQ(tly_pcs_cubin_count(), 0);
	free(li);
	free(plain);
	free(again);
	return th_done();
}

/*
 * rt_srcname.h - source names of code addresses (rt_srcname.c), OpenMP
 * region names made from them (rt_ompname.c) and GCC OpenMP programs on
 * LLVM libomp when asked for (rt_libomp.c).
 */
#ifndef TALLY_RT_SRCNAME_H
#define TALLY_RT_SRCNAME_H

#include <stddef.h>
#include <stdint.h>


/*
 * name: "function (file:line)[ in caller (file:line)...]" (inlined frames)
 * from DWARF, else "symbol+0xoffset"; raw: "module+0xoffset".  is_return:
 * pc is a return address (the call before it is named).  1 when DWARF
 * named it.  Not for hot paths: callers cache per address. */
int tly_rt_srcname(const void *pc, int is_return, char *name, size_t nlen, char *raw, size_t rlen);
/* The CPU time the process spent in tly_rt_srcname (ns): Tally's cost, in the
 * file's per-event cost (naming happens at an address's first event). */
int64_t tly_rt_srcname_ns(void);
/* A region name "<label> @ <src>" that carries its raw address after
 * TLY_RT_ADDR_SEP (output/out_records.h). */
void tly_rt_name_with_address(char *buf, size_t len, const char *label, const char *src, const char *raw);

/* ---- OpenMP region names (rt_ompname.c) -------------------------------- */
/* "omp parallel", "omp loop" or "omp barrier wait" for a TLY_RK_OMP_* kind */
const char *tly_rt_omp_label(int kind);
/* "<label> @ <src>" (with its raw address) for the return address `code` of
 * an OpenMP runtime call; interned for the process, cached per thread. */
const char *tly_rt_omp_name(const void *code, int kind);
/* The calling thread is about to forward the program's OpenMP call at
 * `caller` to a runtime that reports the wrapper's own address as the
 * code address (LLVM's libomp below Tally's GOMP_* wrappers): such an
 * address is named after `caller`.  NULL when done. */
void tly_rt_omp_forwarding(const void *caller);

/* ---- GCC OpenMP programs on LLVM libomp (rt_libomp.c) ----------------- */
/* When the process's GOMP_* calls reach GNU libgomp, run it again with
 * libomp preloaded (`how`: TALLY_LIBOMP); where that cannot be done, warn
 * once.  Returns unless it re-executes the program. */
void tly_rt_libomp_switch(const char *how);

#endif /* TALLY_RT_SRCNAME_H */

/*
 * options_state.h - library-wide option values (multiplex period, itimer)
 * kept by options_state.c, set by papi_opts.c and read by the
 * multiplexing code.
 */
#ifndef TALLY_API_OPTIONS_STATE_H
#define TALLY_API_OPTIONS_STATE_H

#include "papi.h"

/* Default multiplex switching period in ns (PAPI_DEF_MPX_NS). */
int tly_opt_mpx_ns(void);
/* The interval timer used for software multiplexing (PAPI_DEF_ITIMER). */
void tly_opt_itimer(PAPI_itimer_option_t *out);
/* PAPI_set_opt of PAPI_DEF_MPX_NS/USEC and PAPI_DEF_ITIMER(_NS). */
int tly_opt_set_timing(int option, PAPI_option_t *ptr);

/* PAPI_set_opt(PAPI_MULTIPLEX) and PAPI_CPU_ATTACH (papi_attach_mpx.c). */
int tly_set_multiplex_opt(const PAPI_multiplex_option_t *mpx);
int tly_cpu_attach(int EventSet, unsigned int cpu);

#endif /* TALLY_API_OPTIONS_STATE_H */

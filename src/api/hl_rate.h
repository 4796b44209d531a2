/*
 * hl_rate.h - internal entry of the rate machinery (papi_rates.c).
 */
#ifndef TALLY_API_HL_RATE_H
#define TALLY_API_HL_RATE_H

/*
 * PAPI_epc with the cycle events chosen by the caller: PAPI_epc(e, ...) is
 * tly_hl_epc_codes(e ? e : PAPI_TOT_INS, PAPI_TOT_CYC, PAPI_REF_CYC, ...).
 * `core` is required, `ref` optional (reported as 0 when it cannot be
 * added).  Exposed so the tests can drive the rate machinery with real
 * counts on machines whose CPU has no cycle counter (software events in
 * place of the cycles); same state, rules and errors as PAPI_epc.
 */
int tly_hl_epc_codes(int event, int core, int ref, float *rtime, float *ptime,
		     long long *refc, long long *corec, long long *evt, float *epc);

#endif /* TALLY_API_HL_RATE_H */

/*
 * papif_custom.c - the Fortran routines whose arguments do not map one to
 * one onto a C call (info structures spread over scalars, option unions,
 * a Fortran thread-id function).  Their prototypes and external names are
 * generated from papif_spec.txt.
 */
#include "papif_custom.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "papi.h"
#include "papif_support.h"

/* The thread-id function a Fortran program hands to PAPIF_thread_init
 * returns a default INTEGER; PAPI_thread_init wants unsigned long, so the
 * library calls it through this trampoline.  One per process, as the id
 * function itself is. */
typedef int (*tly_fthread_fn)(void);
static struct {
	_Atomic(tly_fthread_fn) fn;
} tly_fthreads;

static unsigned long fortran_thread_id(void)
{
	tly_fthread_fn fn = atomic_load(&tly_fthreads.fn);

	return fn ? (unsigned long)(unsigned int)fn() : 0;
}

void tly_fc_papif_thread_init(int (*handle)(void), int *check)
{
	atomic_store(&tly_fthreads.fn, handle);
	*check = PAPI_thread_init(handle ? fortran_thread_id : NULL);
}

void tly_fc_papif_get_event_info(int *EventCode, char *symbol, char *long_descr, char *short_descr,
				 int *count, char *event_note, int *flags, int *check, size_t symbol_len,
				 size_t long_descr_len, size_t short_descr_len, size_t event_note_len)
{
	PAPI_event_info_t info;

	memset(&info, 0, sizeof info);
	*check = PAPI_get_event_info(*EventCode, &info);
	if (*check != PAPI_OK)
		return;
	tly_fstr_out(symbol, symbol_len, info.symbol);
	tly_fstr_out(long_descr, long_descr_len, info.long_descr);
	tly_fstr_out(short_descr, short_descr_len, info.short_descr);
	tly_fstr_out(event_note, event_note_len, info.note);
	*count = (int)info.count;
	*flags = (int)info.event_type;
}

void tly_fc_papif_get_hardware_info(int *ncpu, int *nnodes, int *totalcpus, int *vendor,
				    char *vendor_string, int *model, char *model_string, float *revision,
				    float *mhz, size_t vendor_string_len, size_t model_string_len)
{
	const PAPI_hw_info_t *hw = PAPI_get_hardware_info();

	/* The reference gives this routine no check argument: nothing is
	 * written when the library cannot describe the hardware. */
	if (!hw)
		return;
	*ncpu = hw->ncpu;
	*nnodes = hw->nnodes;
	*totalcpus = hw->totalcpus;
	*vendor = hw->vendor;
	tly_fstr_out(vendor_string, vendor_string_len, hw->vendor_string);
	*model = hw->model;
	tly_fstr_out(model_string, model_string_len, hw->model_string);
	*revision = hw->revision;
	*mhz = hw->mhz;
}

static long long addr(vptr_t p)
{
	return (long long)(intptr_t)p;
}

void tly_fc_papif_get_exe_info(char *fullname, char *name, long long *text_start, long long *text_end,
			       long long *data_start, long long *data_end, long long *bss_start,
			       long long *bss_end, int *check, size_t fullname_len, size_t name_len)
{
	const PAPI_exe_info_t *exe = PAPI_get_executable_info();

	if (!exe) {
		*check = PAPI_is_initialized() ? PAPI_ESYS : PAPI_ENOINIT;
		return;
	}
	tly_fstr_out(fullname, fullname_len, exe->fullname);
	tly_fstr_out(name, name_len, exe->address_info.name);
	*text_start = addr(exe->address_info.text_start);
	*text_end = addr(exe->address_info.text_end);
	*data_start = addr(exe->address_info.data_start);
	*data_end = addr(exe->address_info.data_end);
	*bss_start = addr(exe->address_info.bss_start);
	*bss_end = addr(exe->address_info.bss_end);
	*check = PAPI_OK;
}

/* dmem(PAPIF_DMEM_x) in Fortran (1-based) is dmem[PAPIF_DMEM_x - 1] here. */
void tly_fc_papif_get_dmem_info(long long *dmem, int *check)
{
	PAPI_dmem_info_t d;

	*check = PAPI_get_dmem_info(&d);
	if (*check != PAPI_OK)
		return;
	dmem[PAPIF_DMEM_VMSIZE - 1] = d.size;
	dmem[PAPIF_DMEM_RESIDENT - 1] = d.resident;
	dmem[PAPIF_DMEM_HIGH_WATER - 1] = d.high_water_mark;
	dmem[PAPIF_DMEM_SHARED - 1] = d.shared;
	dmem[PAPIF_DMEM_TEXT - 1] = d.text;
	dmem[PAPIF_DMEM_LIBRARY - 1] = d.library;
	dmem[PAPIF_DMEM_HEAP - 1] = d.heap;
	dmem[PAPIF_DMEM_LOCKED - 1] = d.locked;
	dmem[PAPIF_DMEM_STACK - 1] = d.stack;
	dmem[PAPIF_DMEM_PAGESIZE - 1] = d.pagesize;
	dmem[PAPIF_DMEM_PTE - 1] = d.pte;
}

void tly_fc_papif_get_preload(char *lib_preload_env, int *check, size_t lib_preload_env_len)
{
	PAPI_option_t opt;

	memset(&opt, 0, sizeof opt);
	*check = PAPI_get_opt(PAPI_PRELOAD, &opt);
	if (*check == PAPI_OK)
		tly_fstr_out(lib_preload_env, lib_preload_env_len, opt.preload.lib_preload_env);
}

void tly_fc_papif_set_event_domain(int *EventSet, int *domain, int *check)
{
	PAPI_option_t opt;

	memset(&opt, 0, sizeof opt);
	opt.domain.eventset = *EventSet;
	opt.domain.domain = *domain;
	*check = PAPI_set_opt(PAPI_DOMAIN, &opt);
}

/* mode PAPI_DEFDOM/PAPI_DEFGRN: the default; mode PAPI_DOMAIN/PAPI_GRANUL:
 * the event set's setting. */
static int get_setting(int def_opt, int set_opt, int EventSet, int mode, int *value)
{
	PAPI_option_t opt;
	int rc;

	if (mode == def_opt) {
		rc = PAPI_get_opt(def_opt, NULL);
		if (rc >= 0)
			*value = rc;
		return rc < 0 ? rc : PAPI_OK;
	}
	if (mode != set_opt)
		return PAPI_EINVAL;
	memset(&opt, 0, sizeof opt);
	if (set_opt == PAPI_DOMAIN)
		opt.domain.eventset = EventSet;
	else
		opt.granularity.eventset = EventSet;
	rc = PAPI_get_opt(set_opt, &opt);
	if (rc == PAPI_OK)
		*value = set_opt == PAPI_DOMAIN ? opt.domain.domain : opt.granularity.granularity;
	return rc;
}

void tly_fc_papif_get_domain(int *EventSet, int *domain, int *mode, int *check)
{
	*check = get_setting(PAPI_DEFDOM, PAPI_DOMAIN, *EventSet, *mode, domain);
}

void tly_fc_papif_get_granularity(int *EventSet, int *granularity, int *mode, int *check)
{
	*check = get_setting(PAPI_DEFGRN, PAPI_GRANUL, *EventSet, *mode, granularity);
}

/* PAPI 3.5 set inheritance process-wide; Tally (like PAPI 7) keeps it per
 * event set (PAPI_set_opt(PAPI_INHERIT) with an event set), which this
 * argument list cannot name. */
void tly_fc_papif_set_inherit(int *inherit, int *check)
{
	if (*inherit != PAPI_INHERIT_ALL && *inherit != PAPI_INHERIT_NONE)
		*check = PAPI_EINVAL;
	else
		*check = PAPI_ENOSUPP;
}

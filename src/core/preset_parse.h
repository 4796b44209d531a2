/*
 * preset_parse.h - the parser of the preset map file format (preset_types.h) and
 * preset lookup by symbol (preset_parse.c).
 */
#ifndef TALLY_CORE_PRESET_PARSE_H
#define TALLY_CORE_PRESET_PARSE_H

#include "core/preset_types.h"

/* Preset index of a symbol ("PAPI_TOT_CYC"); -1 when there is none. */
int tly_preset_index(const char *symbol);

/* Parse map text; `file` names it in error details (file:line).  fn may be
 * NULL to only check the text.  PAPI_OK, PAPI_EINVAL or PAPI_ENOEVNT. */
int tly_map_parse(const char *file, const char *text, tly_map_row_fn fn, void *arg);

#endif /* TALLY_CORE_PRESET_PARSE_H */

/*
 * presets.h - PAPI preset events: definitions (generated from
 * src/presets/presets.csv), per-PMU mappings to native events (src/presets/maps,
 * the PAPI_encode_events file format), and derived-value evaluation.
 */
#ifndef TALLY_CORE_PRESETS_H
#define TALLY_CORE_PRESETS_H

#include "core/preset_types.h"
#include "core/preset_parse.h"  /* below presets: the map parser */
#include "core/preset_derive.h" /* below preset_parse: derived values */

/*
 * Resolve every preset against the enabled components (after they init):
 * each preset takes the first row, in the embedded maps, of a block whose
 * CPU line names a PMU some enabled component lists in pmu_names or names
 * as its core PMU (tly_component.core_pmu, even one the kernel cannot
 * program), whose natives tly_native_lookup knows and tly_evset_try_natives
 * accepts.  The others get avail < 0 and a note saying why; a preset whose
 * row did not resolve keeps that row's natives (names) for papi_avail.
 *
 * Two tiers: blocks of CPU-specific PMUs first; blocks naming libpfm4's
 * generic PMU "perf" (the kernel's generic hardware and cache events) only
 * when the kernel counts hardware events and no specific block matched, or
 * when TALLY_PRESETS_GENERIC=1 (then only them).  Runs under the library
 * lock; afterwards tly_preset_get may be called from any thread.  The
 * choice is the same as trying every preset here, made per preset when it
 * is first asked for.
 */
int tly_presets_init(void);
void tly_presets_shutdown(void);
/* Resolved preset by index (0..PAPI_END_idx-1); NULL when out of range.
 * tly_presets_init only finds the rows that apply; a preset is tried on the
 * counters at its first tly_preset_get (under the library lock), so
 * PAPI_library_init opens no counter for presets nobody asks about. */
const struct tly_preset *tly_preset_get(int idx);
/* Presets available here (resolves them all). */
int tly_presets_count_avail(void);
/*
 * Load a preset mapping file in the map format (PAPI_encode_events).  The
 * whole file is checked before anything changes: PAPI_EINVAL when it cannot
 * be read or a line is malformed, PAPI_ENOEVNT when a row names a preset
 * symbol that does not exist (detail names file:line).  Blocks whose CPU
 * line names a present PMU, or "*", apply: with replace, each row that
 * resolves replaces the preset; without, only presets not yet available
 * change.  Rows that do not resolve leave an available preset untouched.
 * The caller holds the library lock.
 */
int tly_presets_load_file(const char *path, int replace);

#endif /* TALLY_CORE_PRESETS_H */

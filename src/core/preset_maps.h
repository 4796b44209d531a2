/*
 * preset_maps.h - the preset mapping files of src/presets/maps, embedded
 * into the library by src/presets/gen_maps.py (generated preset_maps.c).
 *
 * Each entry is one map file, kept as text so that the runtime parses it
 * with the same parser PAPI_encode_events uses (tly_map_parse, presets.h).
 */
#ifndef TALLY_CORE_PRESET_MAPS_H
#define TALLY_CORE_PRESET_MAPS_H

struct tly_preset_map {
	const char *file; /* "maps/<family>.csv", used in notes and errors */
	const char *text; /* the whole file */
};

/* The embedded map files, in file-name order. */
extern const struct tly_preset_map tly_preset_maps[];
extern const int tly_num_preset_maps;

#endif /* TALLY_CORE_PRESET_MAPS_H */

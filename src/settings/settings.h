/*
 * settings.h - the settings: the ids of the one table (settings.def), its
 * parser and the environment's only reader (settings.c), the messages of
 * the library's own settings (settings_say.c).  Shared by the library and
 * the runtime through tally_shared.h, which includes this header; this
 * part includes nothing of Tally's but its table.
 */
#ifndef TALLY_SETTINGS_H
#define TALLY_SETTINGS_H

#include <stddef.h>

/* The ids of the table's rows: TLY_SET_<field>. */
enum tly_setting_id {
#define TLY_SETTING(field, env, kind, def, max, help) TLY_SET_##field,
#include "settings/settings.def"
#undef TLY_SETTING
	TLY_NSETTINGS
};
enum tly_setting_kind { TLY_KIND_BOOL, TLY_KIND_INT, TLY_KIND_SIZE, TLY_KIND_STR, TLY_KIND_LIST, TLY_KIND_CHOICE };
struct tly_setting_row {
	const char *env, *def, *help;
	int kind;             /* enum tly_setting_kind */
	long long max;        /* INT and SIZE */
};
/* The row of a setting, NULL for an id out of range. */
const struct tly_setting_row *tly_setting_row(int id);
/* The id of the setting named by the n bytes at name, -1 when none. */
int tly_setting_find(const char *name, size_t n);
/* The environment's value, NULL when unset or empty. */
const char *tly_setting_raw(int id);
/* The value, or the default when unset (STR and LIST; no check). */
const char *tly_setting_str(int id);
/* A CHOICE row's words, comma-separated ("exclude,measure"); NULL for
 * the other kinds. */
const char *tly_setting_choices(int id);
/* A CHOICE value v in the table's spelling (any case matches; NULL or ""
 * gives the default) into out[len]: 0, or -1 when v is none of the words
 * (out then holds the default). */
int tly_setting_word(int id, const char *v, char *out, size_t len);
/* v as a message shows it, in out[len]: control characters escaped (\n,
 * \x1b...: a newline in a value would split the message, an escape
 * sequence would reach the terminal), "..." when it does not fit; the
 * same text again gives the same text.  Returns out. */
const char *tly_quote(const char *v, char *out, size_t len);
/* 0 when v is well-formed for the setting's kind (NULL and "" are), else
 * -1 with a sentence naming the variable and what it accepts in why (the
 * value quoted by tly_quote). */
int tly_setting_check(int id, const char *v, char *why, size_t len);
/* The value of a BOOL, or an INT or SIZE: 0, or -1 when the value is
 * malformed (the sentence in why, the default in *out). */
int tly_setting_bool(int id, int *out, char *why, size_t len);
int tly_setting_num(int id, long long *out, char *why, size_t len);
/* The same for the library's own settings: a malformed value is said
 * once per process on stderr and the default returned (settings_say.c). */
int tly_setting_flag(int id);
long long tly_setting_count(int id);
/* 1 for a row libtally reads itself (help text "library: ..."). */
int tly_setting_is_library(int id);
/* 1 when the caller is the first to say setting id's malformed value in
 * this process (the library's messages then stay quiet), else 0. */
int tly_setting_claim(int id);
/* The settings this process was given (set in the environment, by hand
 * or by tally-run's flags): one "NAME=value\n" line each (the value as
 * tly_quote shows it), tally-report's own rows left out; lines that do
 * not fit are cut whole, "...\n" said.  Returns the length. */
size_t tly_settings_given(char *buf, size_t len);
/* Say every malformed library setting once (PAPI_library_init). */
void tly_settings_say_library(void);
/* A CHOICE setting from the environment into out[len] (tly_setting_word),
 * a word it does not take said once and the default used. */
void tly_setting_pick(int id, char *out, size_t len);
/* The grammar itself: 1, 0, or -1 for what is no yes/no word; 0 with
 * *out, or -1 for what is no whole number (size: a size) in 0..max. */
int tly_parse_bool(const char *s);
int tly_parse_num(const char *s, int size, long long max, long long *out);
/* A variable that is not Tally's setting (HOME, TMPDIR, OMPI_*, SLURM_*,
 * LD_PRELOAD, TALLY_INTERNAL_* markers): its value or NULL. */
const char *tly_env_raw(const char *name);
/* The process's rank in a job a launcher started, from the launcher's
 * variables: torchrun's RANK (with WORLD_SIZE), OMPI_COMM_WORLD_RANK,
 * PMIX_RANK, PMI_RANK (MPICH's Hydra, Intel MPI), SLURM_PROCID,
 * MV2_COMM_WORLD_RANK (MVAPICH2), PALS_RANKID (Cray PALS); -1 when none
 * says (a process of its own).  Once-per-job messages come from rank 0. */
int tly_launcher_rank(void);
/* fn on each "NAME=value" of the environment (unknown TALLY_* settings). */
void tly_env_each(void (*fn)(const char *entry, void *arg), void *arg);
/* The whole environment, to hand on to a child (posix_spawn's envp). */
char **tly_env_all(void);

#endif /* TALLY_SETTINGS_H */

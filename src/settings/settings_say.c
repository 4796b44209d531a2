/*
 * settings_say.c - the library's own reading of a setting: a malformed
 * value is said once per process on stderr, in the parser's sentence,
 * and the default is used (the library may run without the runtime, so it
 * cannot leave the message to the runtime's once-per-job report).
 * PAPI_library_init says every malformed library setting at once, on
 * every machine (a GPU setting too where no GPU is); under the runtime,
 * its report claims them first and says them once per job.
 */
#include "settings/settings.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static atomic_uchar said[TLY_NSETTINGS];

int tly_setting_claim(int id)
{
	return id >= 0 && id < TLY_NSETTINGS && !atomic_exchange(&said[id], 1);
}

static void say(int id, const char *why)
{
	if (tly_setting_claim(id))
		fprintf(stderr, "tally: %s; using the default '%s'\n", why, tly_setting_row(id)->def);
}

int tly_setting_is_library(int id)
{
	const struct tly_setting_row *r = tly_setting_row(id);

	return r && !strncmp(r->help, "library:", 8);
}

void tly_settings_say_library(void)
{
	char why[512];

	for (int id = 0; id < TLY_NSETTINGS; id++)
		if (tly_setting_is_library(id) && tly_setting_check(id, tly_setting_raw(id), why, sizeof why) != 0)
			say(id, why);
}

int tly_setting_flag(int id)
{
	char why[512];
	int v;

	if (tly_setting_bool(id, &v, why, sizeof why) != 0)
		say(id, why);
	return v;
}

long long tly_setting_count(int id)
{
	char why[512];
	long long v;

	if (tly_setting_num(id, &v, why, sizeof why) != 0)
		say(id, why);
	return v;
}

void tly_setting_pick(int id, char *out, size_t len)
{
	char why[512];
	const char *v = tly_setting_raw(id);

	if (tly_setting_word(id, v, out, len) != 0 && tly_setting_check(id, v, why, sizeof why) != 0)
		say(id, why);
}

/*
 * tally_gpu_avail.c - GPU devices, domains (hardware units), metrics and
 * group sets: the counterpart of papi_native_avail for GPUs.
 *
 *   tally-gpu-avail                      devices
 *   tally-gpu-avail -d                   domains of each device
 *   tally-gpu-avail -m [-n SUBSTR] [-u UNIT] [-a]  metrics (-a: all rollups)
 *   tally-gpu-avail -g m1,m2,...         group sets (passes, groups)
 *   --chip GH100                         a chip without its GPU (host API)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tally.h"

struct opts {
	int domains, metrics, all;
	const char *name, *unit, *groups, *chip;
};

static int devices(int *first, int *last, const struct opts *o)
{
	int n = 0, rc = tally_gpu_num_devices(&n);

	if (o->chip) {
		rc = tally_gpu_open_chip(o->chip, first);
		*last = *first;
		return rc;
	}
	if (rc != PAPI_OK || n == 0) {
		printf("No GPU: %s\n(use --chip GH100 to list a chip's metrics without its GPU)\n",
		       rc != PAPI_OK ? "GPU support unavailable (see PAPI_perror)" : "no devices");
		if (rc != PAPI_OK) /* no devices is no error: nothing more to say */
			PAPI_perror("tally-gpu-avail");
		return rc != PAPI_OK ? rc : PAPI_ENOSUPP;
	}
	*first = 0;
	*last = n - 1;
	return PAPI_OK;
}

static void print_device(int d)
{
	tally_gpu_device_info_t di = { .size = sizeof di };

	if (tally_gpu_device_info(d, &di) != PAPI_OK) {
		PAPI_perror("tally_gpu_device_info");
		return;
	}
	printf("Device %d: %s, chip %s, compute capability %d.%d, %d SMs\n", d, di.name, di.chip, di.cc_major,
	       di.cc_minor, di.num_sms);
	printf("  profiling: %s%s%s\n", di.profiling_ok ? "yes" : "no", di.reason[0] ? " - " : "", di.reason);
	printf("  %d base metrics in %d domains; catalog loaded in %.3f s (%s)\n", di.num_metrics, di.num_domains,
	       di.enum_seconds, di.enum_from_cache ? "on-disk cache" : "Profiler Host API");
}

static void print_domains(int d)
{
	tally_gpu_device_info_t di = { .size = sizeof di };

	tally_gpu_device_info(d, &di);
	for (int k = 0; k < di.num_domains; k++) {
		tally_gpu_domain_info_t dom = { .size = sizeof dom };

		if (tally_gpu_domain_info(d, k, &dom) == PAPI_OK)
			printf("  domain %-12s %5d events, %d instances%s\n", dom.name, dom.num_events,
			       dom.instance_count, dom.instance_count ? "" : " (unknown)");
	}
}

static void print_event(int d, tally_gpu_event_t id, const struct opts *o)
{
	tally_gpu_event_info_t ei = { .size = sizeof ei };

	if (tally_gpu_event_info(d, id, &ei) != PAPI_OK)
		return;
	if ((o->name && !strstr(ei.name, o->name)) || (o->unit && strcmp(ei.unit, o->unit) != 0))
		return;
	printf("cuda:::%s:device=%d\n    %s [%s, %s]\n", ei.name, d, ei.short_desc, ei.domain,
	       ei.unit[0] ? ei.unit : "no unit");
	for (int k = 0; o->all && k < ei.num_variants; k++) {
		tally_gpu_event_t v;
		tally_gpu_event_info_t vi = { .size = sizeof vi };

		if (tally_gpu_event_variant(d, id, k, &v) == PAPI_OK && tally_gpu_event_info(d, v, &vi) == PAPI_OK)
			printf("      %s\n", vi.name);
	}
}

static void print_metrics(int d, const struct opts *o)
{
	tally_gpu_device_info_t di = { .size = sizeof di };

	tally_gpu_device_info(d, &di);
	for (int k = 0; k < di.num_domains; k++) {
		int n = 0;
		tally_gpu_event_t *ids;

		tally_gpu_domain_events(d, k, NULL, &n);
		ids = calloc((size_t)n + 1, sizeof *ids);
		if (ids && tally_gpu_domain_events(d, k, ids, &n) == PAPI_OK)
			for (int i = 0; i < n; i++)
				print_event(d, ids[i], o);
		free(ids);
	}
}

static int host_only(int d)
{
	tally_gpu_device_info_t di = { .size = sizeof di };

	return tally_gpu_device_info(d, &di) == PAPI_OK && di.cc_major == 0;
}

/* Without a GPU (--chip): the one-pass groups from the Profiler Host API. */
static int print_packing(int d, const tally_gpu_event_t *ids, int n)
{
	int group_of[256], ng = 0, hp = 0;

	if (tally_gpu_pack_passes(d, ids, n, group_of, &ng, &hp) != PAPI_OK) {
		PAPI_perror("tally_gpu_pack_passes");
		return 1;
	}
	printf("%d events: %d passes (Profiler Host API), %d one-pass groups (host only: a GPU "
	       "spreads the groups over the passes)\n", n, hp, ng);
	for (int g = 0; g < ng; g++) {
		printf("  group %d:", g);
		for (int i = 0; i < n; i++) {
			tally_gpu_event_info_t ei = { .size = sizeof ei };

			if (group_of[i] == g && tally_gpu_event_info(d, ids[i], &ei) == PAPI_OK)
				printf(" %s", ei.name);
		}
		printf("\n");
	}
	return 0;
}

static int print_groups(int d, const char *list)
{
	char buf[4096], *save = NULL;
	tally_gpu_event_t ids[256];
	tally_gpu_group_sets_t *sets;
	int n = 0, rc;

	snprintf(buf, sizeof buf, "%s", list);
	for (char *t = strtok_r(buf, ",", &save); t && n < 256; t = strtok_r(NULL, ",", &save))
		if (tally_gpu_event_id(d, t, &ids[n++]) != PAPI_OK) {
			PAPI_perror(t);
			return 1;
		}
	if (host_only(d))
		return print_packing(d, ids, n);
	rc = tally_gpu_group_sets_create(NULL, ids, n, &sets);
	if (rc != PAPI_OK) {
		PAPI_perror("tally_gpu_group_sets_create");
		return 1;
	}
	printf("%d events: %d passes (Profiler Host API: %d)\n", n, sets->num_sets, sets->host_passes);
	for (int k = 0; k < sets->num_sets; k++) {
		printf("  pass %d:\n", k);
		for (int g = 0; g < sets->sets[k].num_groups; g++) {
			tally_gpu_event_t ev[TALLY_GPU_GROUP_MAX_EVENTS];
			size_t sz = sizeof ev;

			tally_gpu_group_get_attr(sets->sets[k].groups[g], TALLY_GPU_GROUP_ATTR_EVENTS, ev, &sz);
			printf("    group %d:", g);
			for (size_t e = 0; e < sz / sizeof ev[0]; e++) {
				tally_gpu_event_info_t ei = { .size = sizeof ei };

				tally_gpu_event_info(d, ev[e], &ei);
				printf(" %s", ei.name);
			}
			printf("\n");
		}
	}
	tally_gpu_group_sets_destroy(sets);
	return 0;
}

static int parse(int argc, char **argv, struct opts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-d"))
			o->domains = 1;
		else if (!strcmp(a, "-m"))
			o->metrics = 1;
		else if (!strcmp(a, "-a"))
			o->all = o->metrics = 1;
		else if (!strcmp(a, "-n") && next)
			o->name = argv[++i], o->metrics = 1;
		else if (!strcmp(a, "-u") && next)
			o->unit = argv[++i], o->metrics = 1;
		else if (!strcmp(a, "-g") && next)
			o->groups = argv[++i];
		else if (!strcmp(a, "--chip") && next)
			o->chip = argv[++i];
		else {
			printf("usage: tally-gpu-avail [-d] [-m] [-a] [-n SUBSTR] [-u UNIT] [-g m1,m2,...] [--chip NAME]\n");
			return strcmp(a, "-h") == 0 ? 0 : 1;
		}
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	int first, last, rc = parse(argc, argv, &o);

	if (rc >= 0)
		return rc;
	if (devices(&first, &last, &o) != PAPI_OK)
		return 1;
	for (int d = first; d <= last; d++) {
		print_device(d);
		if (o.domains)
			print_domains(d);
		if (o.metrics)
			print_metrics(d, &o);
		if (o.groups && print_groups(d, o.groups))
			return 1;
	}
	return 0;
}

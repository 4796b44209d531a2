/*
 * cuda_devices_events.c - tally_gpu_*: the devices, domains and events that
 * event groups are made of, in the legacy CUPTI Event API's model (see
 * tally_gpu.h for the mapping).
 */
#include "cuda_groups_internal.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi.h"
#include "services/err_detail.h"



/* ---- devices, domains, events ---------------------------------------------- */

int tally_gpu_num_devices(int *count)
{
	const char *why = "";
	int rc = tly_cu_discover(&why);

	if (!count)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_num_devices: count is NULL");
	*count = rc == PAPI_OK ? tly_cu_ndevices_all() : 0;
	if (rc != PAPI_OK)
		return tly_err_set(rc, "GPU support unavailable: %s", why);
	return PAPI_OK;
}

int tally_gpu_open_chip(const char *chip, int *device)
{
	return tly_cu_add_chip(chip, device);
}

/* UUID as nvidia-smi -L writes it and PCI bus id of a real device. */
static void identity(const struct tly_cu_device *d, tally_gpu_device_info_t *out)
{
	const struct tly_cu_drv *drv = tly_cu_libs() ? tly_cu_libs()->drv : NULL;
	const unsigned char *b;
	int dom = 0, bus = 0, slot = 0;
	CUuuid u;

	if (!drv || d->host_only)
		return;
	if (drv->cuDeviceGetUuid && drv->cuDeviceGetUuid(&u, d->dev) == CUDA_SUCCESS) {
		b = (const unsigned char *)u.bytes;
		snprintf(out->uuid, sizeof out->uuid,
			 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
			 b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
	}
	if (drv->cuDeviceGetAttribute(&dom, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, d->dev) == CUDA_SUCCESS &&
	    drv->cuDeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, d->dev) == CUDA_SUCCESS &&
	    drv->cuDeviceGetAttribute(&slot, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, d->dev) == CUDA_SUCCESS)
		snprintf(out->pci_bus_id, sizeof out->pci_bus_id, "%04x:%02x:%02x.0", dom, bus, slot);
}

int tally_gpu_device_info(int device, tally_gpu_device_info_t *info)
{
	struct tly_cu_device *d = tly_cu_device(device);
	const struct tly_cu_catalog *c;
	tally_gpu_device_info_t out = { .size = sizeof out };
	size_t room = info ? info->size : 0;

	/* a caller built before the identity fields gets the fields it knows */
	if (!info || room < offsetof(tally_gpu_device_info_t, uuid))
		return tly_err_set(PAPI_EINVAL, "tally_gpu_device_info: set info->size to sizeof(tally_gpu_device_info_t)");
	if (!d)
		return tly_err_last_code();
	c = tly_cu_device_catalog(device);
	out.device = device;
	out.host_only = d->host_only;
	snprintf(out.name, sizeof out.name, "%s", d->name);
	snprintf(out.chip, sizeof out.chip, "%s", d->chip);
	out.cc_major = d->cc_major;
	out.cc_minor = d->cc_minor;
	out.num_sms = d->num_sms;
	out.profiling_ok = d->profiling_ok && !d->host_only;
	snprintf(out.reason, sizeof out.reason, "%s", d->reason);
	out.num_metrics = c ? c->n : 0;
	out.num_domains = c ? c->ndom : 0;
	out.enum_seconds = c ? c->seconds : 0;
	out.enum_from_cache = c ? c->from_cache : 0;
	identity(d, &out);
	out.size = room < sizeof out ? room : sizeof out;
	memcpy(info, &out, out.size);
	return PAPI_OK;
}

static const struct tly_cu_catalog *catalog_or_err(int device)
{
	return tly_cu_device_catalog(device);
}

/* Instances of a hardware unit that the driver tells us about. */
static int instances(int device, const char *dom)
{
	struct tly_cu_device *d = tly_cu_device(device);

	if (!d || d->host_only)
		return 0;
	if (strcmp(dom, "sm") == 0)
		return d->num_sms;
	if (strcmp(dom, "smsp") == 0)
		return 4 * d->num_sms;  /* four sub-partitions per SM since Volta */
	return 0;
}

int tally_gpu_domain_info(int device, int domain, tally_gpu_domain_info_t *info)
{
	const struct tly_cu_catalog *c = catalog_or_err(device);

	if (!c)
		return tly_err_last_code();
	if (!info || info->size < sizeof *info || domain < 0 || domain >= c->ndom)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_domain_info: domain %d of %d, or info->size unset",
				   domain, c->ndom);
	snprintf(info->name, sizeof info->name, "%s", c->dom[domain]);
	info->num_events = c->dom_count[domain];
	info->instance_count = instances(device, c->dom[domain]);
	return PAPI_OK;
}

int tally_gpu_domain_events(int device, int domain, tally_gpu_event_t *ids, int *n)
{
	const struct tly_cu_catalog *c = catalog_or_err(device);
	int k = 0;

	if (!c)
		return tly_err_last_code();
	if (!n || domain < 0 || domain >= c->ndom)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_domain_events: bad domain %d or n is NULL", domain);
	for (int i = 0; i < c->n; i++) {
		if (c->m[i].dom != domain)
			continue;
		if (ids && k < *n)
			ids[k] = tly_cu_evid(i, tly_cu_default_variant(&c->m[i]));
		k++;
	}
	if (ids && k > *n)
		return tly_err_set(PAPI_ECOUNT, "domain %s has %d events, room for %d", c->dom[domain], k, *n);
	*n = k;
	return PAPI_OK;
}

int tally_gpu_event_id(int device, const char *name, tally_gpu_event_t *id)
{
	const struct tly_cu_catalog *c = catalog_or_err(device);
	int m, v;

	if (!c)
		return tly_err_last_code();
	if (!name || !id)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_event_id: name and id required");
	if (tly_cu_catalog_find(c, name, &m, &v) != 0)
		return tly_err_set(PAPI_ENOEVNT, "'%s' is not a metric of %s (a base metric plus a rollup, "
				   "e.g. smsp__inst_executed.sum)", name, c->chip);
	*id = tly_cu_evid(m, v);
	return PAPI_OK;
}

static int split_id(const struct tly_cu_catalog *c, tally_gpu_event_t id, int *m, int *v)
{
	if (tly_cu_evid_split(c, id, m, v) != 0)
		return tly_err_set(PAPI_ENOEVNT, "GPU event id %llu is not valid on %s", (unsigned long long)id, c->chip);
	return PAPI_OK;
}

int tally_gpu_event_info(int device, tally_gpu_event_t id, tally_gpu_event_info_t *info)
{
	const struct tly_cu_catalog *c = catalog_or_err(device);
	static const char *const cat[] = { "counter", "ratio", "throughput" };
	const struct tly_cu_metric *mm;
	int m, v;

	if (!c)
		return tly_err_last_code();
	if (!info || info->size < sizeof *info)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_event_info: set info->size");
	if (split_id(c, id, &m, &v) != PAPI_OK)
		return PAPI_ENOEVNT;
	mm = &c->m[m];
	info->id = id;
	tly_cu_full_name(c, m, v, info->name, sizeof info->name);
	snprintf(info->short_desc, sizeof info->short_desc, "%s", mm->desc);
	snprintf(info->long_desc, sizeof info->long_desc, "%s. Category %s, unit %s, hardware unit %s; "
		 "%d variants of %s.", mm->desc, cat[mm->type % 3], mm->unit[0] ? mm->unit : "none", mm->hw,
		 mm->nsub, mm->name);
	snprintf(info->unit, sizeof info->unit, "%s", mm->unit);
	snprintf(info->domain, sizeof info->domain, "%s", mm->hw);
	info->domain_index = mm->dom;
	info->category = mm->type;
	info->scope = TALLY_GPU_SCOPE_CONTEXT;
	info->num_variants = mm->nsub;
	return PAPI_OK;
}

int tally_gpu_event_variant(int device, tally_gpu_event_t id, int k, tally_gpu_event_t *out)
{
	const struct tly_cu_catalog *c = catalog_or_err(device);
	int m, v;

	if (!c)
		return tly_err_last_code();
	if (split_id(c, id, &m, &v) != PAPI_OK)
		return PAPI_ENOEVNT;
	if (!out || k < 0 || k >= c->m[m].nsub)
		return tly_err_set(PAPI_EINVAL, "variant %d of %s: it has %d", k, c->m[m].name, c->m[m].nsub);
	*out = tly_cu_evid(m, k + 1);
	return PAPI_OK;
}

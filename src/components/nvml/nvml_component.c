/*
 * nvml_component.c - the `nvml` PAPI component: GPU board readings from
 * NVIDIA's Management Library as native events
 * "nvml:::<event>:device=<n>" (n = NVML's index, the one nvidia-smi shows).
 *
 * libnvidia-ml.so.1 comes with the driver and is loaded at run time
 * (nvml_dl.c); without it the component stays listed, disabled with the
 * loader's reason.  `energy` is a counter (the change of NVML's
 * total-energy counter since start or reset), so it adds up over regions
 * and reads; every other event is a reading taken at the time of the
 * read (PAPI_TIMESCOPE_POINT).  Readings are per device, not per process.
 */
#include "nvml_events.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "components/component.h"
#include "services/err_detail.h"

#define NV_MAX_DEV 64
#define NV_MAX_EV 32
#define TOK_DEV_SHIFT 8

/* The component's state: written by init/shutdown and by the first probe
 * of an event on a device, under the lock. */
static struct {
	pthread_mutex_t lock;
	const struct tly_nvml_fns *f;
	int ndev;
	tly_nvml_dev dev[NV_MAX_DEV];
	unsigned probed[NV_MAX_DEV], supported[NV_MAX_DEV];  /* bit per event */
} nvml = { .lock = PTHREAD_MUTEX_INITIALIZER };

struct nv_ev {
	int dev, ev;
	long long start;
};

struct nv_ctl {
	int n, running;
	struct nv_ev ev[NV_MAX_EV];
};

static int nvml_err(tly_nvml_ret r, const char *what)
{
	int code = r == TLY_NVML_ERROR_NOT_SUPPORTED ? PAPI_ENOSUPP
		 : r == TLY_NVML_ERROR_NO_PERMISSION ? PAPI_EPERM : PAPI_ESYS;

	return tly_err_set(code, "nvml: %s: %s", what, nvml.f ? nvml.f->nvmlErrorString(r) : "NVML not loaded");
}

/* ---- init ---------------------------------------------------------------------------- */

static int discover(char *why, size_t len)
{
	unsigned int n = 0;
	tly_nvml_ret r = nvml.f->nvmlInit_v2();

	if (r != TLY_NVML_SUCCESS) {
		snprintf(why, len, "nvmlInit failed: %s", nvml.f->nvmlErrorString(r));
		return PAPI_ENOSUPP;
	}
	r = nvml.f->nvmlDeviceGetCount_v2(&n);
	if (r != TLY_NVML_SUCCESS || n == 0) {
		snprintf(why, len, "NVML sees no GPU (%s)", r ? nvml.f->nvmlErrorString(r) : "0 devices");
		nvml.f->nvmlShutdown();
		return PAPI_ENOSUPP;
	}
	nvml.ndev = 0;
	for (unsigned int i = 0; i < n && nvml.ndev < NV_MAX_DEV; i++) {
		if (nvml.f->nvmlDeviceGetHandleByIndex_v2(i, &nvml.dev[nvml.ndev]) != TLY_NVML_SUCCESS)
			break;   /* indices must stay NVML's: stop at the first gap */
		nvml.probed[nvml.ndev] = nvml.supported[nvml.ndev] = 0;
		nvml.ndev++;
	}
	return PAPI_OK;
}

static int nv_init(PAPI_component_info_t *info)
{
	char why[sizeof info->disabled_reason] = "";
	int rc;

	info->num_cntrs = NV_MAX_EV;
	info->num_mpx_cntrs = NV_MAX_EV;
	info->default_domain = PAPI_DOM_ALL;
	info->available_domains = PAPI_DOM_ALL;
	info->default_granularity = PAPI_GRN_SYS;
	info->available_granularities = PAPI_GRN_SYS;
	pthread_mutex_lock(&nvml.lock);
	nvml.f = tly_nvml_load(why, sizeof why);
	rc = nvml.f ? discover(why, sizeof why) : PAPI_ENOSUPP;
	if (rc != PAPI_OK)
		nvml.ndev = 0;
	pthread_mutex_unlock(&nvml.lock);
	if (rc != PAPI_OK) {
		info->disabled = rc;
		snprintf(info->disabled_reason, sizeof info->disabled_reason, "%s", why);
		return PAPI_OK;
	}
	snprintf(info->support_version, sizeof info->support_version, "NVML (libnvidia-ml.so.1)");
	info->disabled_reason[0] = '\0';
	return PAPI_OK;
}

static void nv_shutdown(void)
{
	pthread_mutex_lock(&nvml.lock);
	if (nvml.f && nvml.ndev)
		nvml.f->nvmlShutdown();
	nvml.ndev = 0;
	pthread_mutex_unlock(&nvml.lock);
}

/* Whether event `ev` reads on device `dev` (asked of NVML once). */
static int supported(int dev, int ev)
{
	unsigned bit = 1u << ev;
	int ok;

	pthread_mutex_lock(&nvml.lock);
	if (dev >= nvml.ndev) {
		pthread_mutex_unlock(&nvml.lock);
		return 0;
	}
	if (!(nvml.probed[dev] & bit)) {
		long long v;

		if (tly_nvml_event_read(ev, nvml.f, nvml.dev[dev], &v) == TLY_NVML_SUCCESS)
			nvml.supported[dev] |= bit;
		nvml.probed[dev] |= bit;
	}
	ok = (nvml.supported[dev] & bit) != 0;
	pthread_mutex_unlock(&nvml.lock);
	return ok;
}

/* ---- native events ------------------------------------------------------------------- */

static uint64_t tok_make(int dev, int ev)
{
	return ((uint64_t)dev << TOK_DEV_SHIFT) | (uint64_t)ev;
}

static void tok_split(uint64_t tok, int *dev, int *ev)
{
	*dev = (int)(tok >> TOK_DEV_SHIFT);
	*ev = (int)(tok & 0xff);
}

static int nv_ntv_enum(uint64_t *tok, int modifier)
{
	int dev = 0, ev = 0;

	if (modifier == PAPI_NTV_ENUM_UMASKS)
		return PAPI_ENOEVNT;
	if (modifier == PAPI_ENUM_EVENTS) {
		tok_split(*tok, &dev, &ev);
		ev++;
	} else if (modifier != PAPI_ENUM_FIRST) {
		return PAPI_EINVAL;
	}
	for (; dev < nvml.ndev; dev++, ev = 0)
		for (; ev < tly_nvml_nevents; ev++)
			if (supported(dev, ev)) {
				*tok = tok_make(dev, ev);
				return PAPI_OK;
			}
	return PAPI_ENOEVNT;
}

static int nv_ntv_name(uint64_t tok, char *buf, size_t len)
{
	int dev, ev;

	tok_split(tok, &dev, &ev);
	if (dev >= nvml.ndev || ev >= tly_nvml_nevents)
		return tly_err_set(PAPI_ENOEVNT, "nvml: no event for token %llx", (unsigned long long)tok);
	snprintf(buf, len, "nvml:::%s:device=%d", tly_nvml_events[ev].name, dev);
	return PAPI_OK;
}

/* "[nvml:::]event[:device=N]" -> device and event index. */
static int parse_name(const char *name, int *dev, int *ev)
{
	const char *q;
	char base[64], *end = NULL;

	*dev = 0;
	*ev = -1;
	if (strncmp(name, "nvml:::", 7) == 0)
		name += 7;
	q = strstr(name, ":device=");
	if (q) {
		long d = strtol(q + 8, &end, 10);

		if (end == q + 8 || *end || d < 0 || d >= NV_MAX_DEV)
			return tly_err_set(PAPI_ENOEVNT, "nvml: bad device qualifier in '%s'", name);
		*dev = (int)d;
	}
	snprintf(base, sizeof base, "%.*s", (int)(q ? (size_t)(q - name) : strlen(name)), name);
	*ev = tly_nvml_event_find(base);
	if (*ev < 0)
		return tly_err_set(PAPI_ENOEVNT, "nvml: '%s' is not an nvml event (papi_native_avail lists them)",
				   base);
	if (*dev >= nvml.ndev)
		return tly_err_set(PAPI_ENOEVNT, "nvml: no GPU %d (NVML sees %d)", *dev, nvml.ndev);
	if (!supported(*dev, *ev))
		return tly_err_set(PAPI_ENOEVNT, "nvml: GPU %d does not report %s", *dev, base);
	return PAPI_OK;
}

static int nv_ntv_lookup(const char *name, uint64_t *tok, char *canon, size_t len)
{
	int dev = 0, ev = 0, rc = parse_name(name, &dev, &ev);

	if (rc != PAPI_OK)
		return rc;
	*tok = tok_make(dev, ev);
	return nv_ntv_name(*tok, canon, len);
}

static int nv_ntv_describe(uint64_t tok, const char *name, PAPI_event_info_t *info)
{
	int dev, ev;
	const struct tly_nvml_event *e;
	char gpu[96] = "";

	tok_split(tok, &dev, &ev);
	if (dev >= nvml.ndev || ev >= tly_nvml_nevents)
		return PAPI_ENOEVNT;
	e = &tly_nvml_events[ev];
	nvml.f->nvmlDeviceGetName(nvml.dev[dev], gpu, sizeof gpu);
	snprintf(info->symbol, sizeof info->symbol, "%s", name);
	snprintf(info->short_descr, sizeof info->short_descr, "%s", e->descr);
	snprintf(info->long_descr, sizeof info->long_descr, "%s [unit: %s; GPU %d %s]", e->descr, e->units,
		 dev, gpu);
	snprintf(info->units, sizeof info->units, "%s", e->units);
	info->data_type = PAPI_DATATYPE_INT64;
	info->value_type = e->kind == TLY_NVML_COUNTER ? PAPI_VALUETYPE_RUNNING_SUM : PAPI_VALUETYPE_ABSOLUTE;
	info->timescope = e->kind == TLY_NVML_COUNTER ? PAPI_TIMESCOPE_SINCE_START : PAPI_TIMESCOPE_POINT;
	return PAPI_OK;
}

/* ---- control state ------------------------------------------------------------------- */

static int nv_ctl_init(void *ctl, const struct tly_ctl_opts *opts)
{
	(void)opts;
	memset(ctl, 0, sizeof(struct nv_ctl));
	return PAPI_OK;
}

static int nv_ctl_update(void *ctl, const char *const *names, int n)
{
	struct nv_ctl *c = ctl;

	if (n > NV_MAX_EV)
		return tly_err_set(PAPI_ECOUNT, "nvml: at most %d events per event set", NV_MAX_EV);
	c->n = 0;
	for (int i = 0; i < n; i++) {
		int rc = parse_name(names[i], &c->ev[i].dev, &c->ev[i].ev);

		if (rc != PAPI_OK)
			return rc;
	}
	c->n = n;
	return PAPI_OK;
}

static int read_one(const struct nv_ev *e, long long *v)
{
	tly_nvml_ret r = tly_nvml_event_read(e->ev, nvml.f, nvml.dev[e->dev], v);

	return r == TLY_NVML_SUCCESS ? PAPI_OK : nvml_err(r, tly_nvml_events[e->ev].name);
}

/* Counters remember their value now, as the zero of later reads. */
static int mark_start(struct nv_ctl *c)
{
	for (int i = 0; i < c->n; i++) {
		int rc;

		if (tly_nvml_events[c->ev[i].ev].kind != TLY_NVML_COUNTER)
			continue;
		rc = read_one(&c->ev[i], &c->ev[i].start);
		if (rc != PAPI_OK)
			return rc;
	}
	return PAPI_OK;
}

static int nv_ctl_start(void *ctl)
{
	struct nv_ctl *c = ctl;
	int rc = mark_start(c);

	c->running = rc == PAPI_OK;
	return rc;
}

static int nv_ctl_stop(void *ctl)
{
	((struct nv_ctl *)ctl)->running = 0;
	return PAPI_OK;
}

static int nv_ctl_read(void *ctl, long long *vals)
{
	struct nv_ctl *c = ctl;

	for (int i = 0; i < c->n; i++) {
		int rc = read_one(&c->ev[i], &vals[i]);

		if (rc != PAPI_OK)
			return rc;
		if (tly_nvml_events[c->ev[i].ev].kind == TLY_NVML_COUNTER)
			vals[i] -= c->ev[i].start;
	}
	return PAPI_OK;
}

static int nv_ctl_reset(void *ctl)
{
	return mark_start(ctl);
}

static int nv_ctl_set_opts(void *ctl, const struct tly_ctl_opts *opts)
{
	(void)ctl;
	(void)opts;
	return PAPI_OK;
}

static void nv_ctl_cleanup(void *ctl)
{
	((struct nv_ctl *)ctl)->n = 0;
}

const struct tly_component tly_cmp_nvml = {
	.name = "nvml",
	.short_name = "nvml",
	.description = "NVIDIA GPU power, energy, temperature, clocks, memory, utilisation (NVML)",
	.version = "1.0",
	.ctl_size = sizeof(struct nv_ctl),
	.deferred_init = 1,   /* nvmlInit: at first use */
	.init = nv_init,
	.shutdown = nv_shutdown,
	.ntv_enum = nv_ntv_enum,
	.ntv_lookup = nv_ntv_lookup,
	.ntv_name = nv_ntv_name,
	.ntv_describe = nv_ntv_describe,
	.ctl_init = nv_ctl_init,
	.ctl_update = nv_ctl_update,
	.ctl_set_opts = nv_ctl_set_opts,
	.ctl_start = nv_ctl_start,
	.ctl_stop = nv_ctl_stop,
	.ctl_read = nv_ctl_read,
	.ctl_reset = nv_ctl_reset,
	.ctl_cleanup = nv_ctl_cleanup,
};

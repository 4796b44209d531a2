/*
 * tally-otf2-dump ARCHIVE/traces.otf2 - a Tally trace read with OTF2's C
 * reader (the library the runtime wrote it with: the archive's mapping
 * tables and clock offsets applied), written as lines of tab-separated
 * fields for tally-report's Perfetto export (analysis/tally/trace_export.py)
 * where Python has no OTF2 bindings (a pip-only Python).  Installed beside
 * tally-report.  The lines (an interface between this program and
 * trace_export.py only; docs/trace.md):
 *   C offset resolution          clock properties
 *   G id name                    location group (a rank, a GPU)
 *   L id name group              location (a thread, a GPU stream)
 *   R id name                    region
 *   N id name                    metric member
 *   K id member,member...        metric class
 *   B loc time region            enter          E loc time   leave
 *   S loc time receiver tag len  send           V loc time sender tag len  receive
 *   O loc time op sent received  collective end (op: OTF2_CollectiveOp)
 *   M loc time class v,v...      metric values
 * Exit status 0, or 1 with one line on stderr.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct defs {
	char **str;
	uint32_t nstr;
	FILE *out;
	uint64_t *locs;
	size_t nlocs, cap;
};

static const char *S(const struct defs *d, OTF2_StringRef r)
{
	return r < d->nstr && d->str[r] ? d->str[r] : "";
}

static OTF2_CallbackCode on_string(void *u, OTF2_StringRef self, const char *s)
{
	struct defs *d = u;

	if (self >= d->nstr) {
		uint32_t n = self + 1024;
		char **p = realloc(d->str, n * sizeof *p);

		if (!p)
			return OTF2_CALLBACK_INTERRUPT;
		memset(p + d->nstr, 0, (n - d->nstr) * sizeof *p);
		d->str = p;
		d->nstr = n;
	}
	free(d->str[self]);
	d->str[self] = strdup(s);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_clock(void *u, uint64_t res, uint64_t off, uint64_t len, uint64_t rt)
{
	(void)len;
	(void)rt;
	fprintf(((struct defs *)u)->out, "C\t%" PRIu64 "\t%" PRIu64 "\n", off, res);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_group(void *u, OTF2_LocationGroupRef self, OTF2_StringRef name, OTF2_LocationGroupType t,
				  OTF2_SystemTreeNodeRef parent, OTF2_LocationGroupRef creator)
{
	(void)t;
	(void)parent;
	(void)creator;
	fprintf(((struct defs *)u)->out, "G\t%u\t%s\n", (unsigned)self, S(u, name));
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_location(void *u, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType t,
				     uint64_t nev, OTF2_LocationGroupRef group)
{
	struct defs *d = u;

	(void)t;
	(void)nev;
	if (d->nlocs == d->cap) {
		size_t n = d->cap ? 2 * d->cap : 64;
		uint64_t *p = realloc(d->locs, n * sizeof *p);

		if (!p)
			return OTF2_CALLBACK_INTERRUPT;
		d->locs = p;
		d->cap = n;
	}
	d->locs[d->nlocs++] = self;
	fprintf(d->out, "L\t%" PRIu64 "\t%s\t%u\n", self, S(d, name), (unsigned)group);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_region(void *u, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef canon,
				   OTF2_StringRef descr, OTF2_RegionRole role, OTF2_Paradigm par, OTF2_RegionFlag fl,
				   OTF2_StringRef file, uint32_t b, uint32_t e)
{
	(void)canon;
	(void)descr;
	(void)role;
	(void)par;
	(void)fl;
	(void)file;
	(void)b;
	(void)e;
	fprintf(((struct defs *)u)->out, "R\t%u\t%s\n", (unsigned)self, S(u, name));
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_member(void *u, OTF2_MetricMemberRef self, OTF2_StringRef name, OTF2_StringRef descr,
				   OTF2_MetricType mt, OTF2_MetricMode mm, OTF2_Type vt, OTF2_Base base, int64_t exp,
				   OTF2_StringRef unit)
{
	(void)descr;
	(void)mt;
	(void)mm;
	(void)vt;
	(void)base;
	(void)exp;
	(void)unit;
	fprintf(((struct defs *)u)->out, "N\t%u\t%s\n", (unsigned)self, S(u, name));
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_class(void *u, OTF2_MetricRef self, uint8_t n, const OTF2_MetricMemberRef *m,
				  OTF2_MetricOccurrence occ, OTF2_RecorderKind rk)
{
	FILE *o = ((struct defs *)u)->out;

	(void)occ;
	(void)rk;
	fprintf(o, "K\t%u\t", (unsigned)self);
	for (int i = 0; i < n; i++)
		fprintf(o, "%s%u", i ? "," : "", (unsigned)m[i]);
	fputc('\n', o);
	return OTF2_CALLBACK_SUCCESS;
}

/* ---- events ---- */
static OTF2_CallbackCode ev_enter(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a, OTF2_RegionRef r)
{
	(void)a;
	fprintf(((struct defs *)u)->out, "B\t%" PRIu64 "\t%" PRIu64 "\t%u\n", l, t, (unsigned)r);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_leave(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a, OTF2_RegionRef r)
{
	(void)a;
	(void)r;
	fprintf(((struct defs *)u)->out, "E\t%" PRIu64 "\t%" PRIu64 "\n", l, t);
	return OTF2_CALLBACK_SUCCESS;
}

static void msg(void *u, char k, OTF2_LocationRef l, OTF2_TimeStamp t, uint32_t peer, uint32_t tag, uint64_t len)
{
	fprintf(((struct defs *)u)->out, "%c\t%" PRIu64 "\t%" PRIu64 "\t%u\t%u\t%" PRIu64 "\n", k, l, t, peer, tag, len);
}

static OTF2_CallbackCode ev_send(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a, uint32_t to,
				 OTF2_CommRef c, uint32_t tag, uint64_t len)
{
	(void)a;
	(void)c;
	msg(u, 'S', l, t, to, tag, len);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_isend(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a, uint32_t to,
				  OTF2_CommRef c, uint32_t tag, uint64_t len, uint64_t req)
{
	(void)req;
	return ev_send(l, t, u, a, to, c, tag, len);
}

static OTF2_CallbackCode ev_recv(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a, uint32_t from,
				 OTF2_CommRef c, uint32_t tag, uint64_t len)
{
	(void)a;
	(void)c;
	msg(u, 'V', l, t, from, tag, len);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_irecv(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a, uint32_t from,
				  OTF2_CommRef c, uint32_t tag, uint64_t len, uint64_t req)
{
	(void)req;
	return ev_recv(l, t, u, a, from, c, tag, len);
}

static OTF2_CallbackCode ev_coll(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
				 OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t root, uint64_t sent, uint64_t recv)
{
	(void)a;
	(void)c;
	(void)root;
	fprintf(((struct defs *)u)->out, "O\t%" PRIu64 "\t%" PRIu64 "\t%u\t%" PRIu64 "\t%" PRIu64 "\n", l, t,
		(unsigned)op, sent, recv);
	return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode ev_metric(OTF2_LocationRef l, OTF2_TimeStamp t, void *u, OTF2_AttributeList *a,
				   OTF2_MetricRef m, uint8_t n, const OTF2_Type *ty, const OTF2_MetricValue *v)
{
	FILE *o = ((struct defs *)u)->out;

	(void)a;
	fprintf(o, "M\t%" PRIu64 "\t%" PRIu64 "\t%u\t", l, t, (unsigned)m);
	for (int i = 0; i < n; i++) {
		fputs(i ? "," : "", o);
		if (ty[i] == OTF2_TYPE_DOUBLE)
			fprintf(o, "%.17g", v[i].floating_point);
		else if (ty[i] == OTF2_TYPE_UINT64)
			fprintf(o, "%" PRIu64, v[i].unsigned_int);
		else
			fprintf(o, "%" PRId64, v[i].signed_int);
	}
	fputc('\n', o);
	return OTF2_CALLBACK_SUCCESS;
}

static int read_defs(OTF2_Reader *r, struct defs *d)
{
	OTF2_GlobalDefReader *gr = OTF2_Reader_GetGlobalDefReader(r);
	OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
	uint64_t n = 0;

	if (!gr || !cb)
		return -1;
	OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, on_string);
	OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, on_clock);
	OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cb, on_group);
	OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, on_location);
	OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, on_region);
	OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(cb, on_member);
	OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(cb, on_class);
	OTF2_Reader_RegisterGlobalDefCallbacks(r, gr, cb, d);
	OTF2_GlobalDefReaderCallbacks_Delete(cb);
	return OTF2_Reader_ReadAllGlobalDefinitions(r, gr, &n) == OTF2_SUCCESS ? 0 : -1;
}

/* Every location's local definitions (the mapping tables, clock offsets)
 * read, then all events in time order. */
static int read_events(OTF2_Reader *r, struct defs *d)
{
	OTF2_GlobalEvtReader *ge;
	OTF2_GlobalEvtReaderCallbacks *cb;
	uint64_t n = 0;
	int ok;

	for (size_t i = 0; i < d->nlocs; i++)
		OTF2_Reader_SelectLocation(r, d->locs[i]);
	ok = d->nlocs == 0 || (OTF2_Reader_OpenDefFiles(r) == OTF2_SUCCESS && OTF2_Reader_OpenEvtFiles(r) == OTF2_SUCCESS);
	for (size_t i = 0; ok && i < d->nlocs; i++) {
		OTF2_DefReader *dr = OTF2_Reader_GetDefReader(r, d->locs[i]);
		uint64_t k = 0;

		if (dr) {   /* a location without definitions has none to apply */
			OTF2_Reader_ReadAllLocalDefinitions(r, dr, &k);
			OTF2_Reader_CloseDefReader(r, dr);
		}
		ok = OTF2_Reader_GetEvtReader(r, d->locs[i]) != NULL;
	}
	if (!ok || d->nlocs == 0)
		return ok ? 0 : -1;
	OTF2_Reader_CloseDefFiles(r);
	ge = OTF2_Reader_GetGlobalEvtReader(r);
	cb = OTF2_GlobalEvtReaderCallbacks_New();
	if (!ge || !cb)
		return -1;
	OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(cb, ev_enter);
	OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(cb, ev_leave);
	OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(cb, ev_send);
	OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(cb, ev_isend);
	OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(cb, ev_recv);
	OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(cb, ev_irecv);
	OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, ev_coll);
	OTF2_GlobalEvtReaderCallbacks_SetMetricCallback(cb, ev_metric);
	OTF2_Reader_RegisterGlobalEvtCallbacks(r, ge, cb, d);
	OTF2_GlobalEvtReaderCallbacks_Delete(cb);
	ok = OTF2_Reader_ReadAllGlobalEvents(r, ge, &n) == OTF2_SUCCESS;
	OTF2_Reader_CloseGlobalEvtReader(r, ge);
	OTF2_Reader_CloseEvtFiles(r);
	return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct defs d = { .out = stdout };
	OTF2_Reader *r;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: tally-otf2-dump ARCHIVE/traces.otf2\n");
		return 1;
	}
	r = OTF2_Reader_Open(argv[1]);
	if (!r || OTF2_Reader_SetSerialCollectiveCallbacks(r) != OTF2_SUCCESS) {
		fprintf(stderr, "tally-otf2-dump: %s: OTF2 cannot open the archive\n", argv[1]);
		return 1;
	}
	rc = read_defs(r, &d) == 0 && read_events(r, &d) == 0 ? 0 : 1;
	if (rc)
		fprintf(stderr, "tally-otf2-dump: %s: OTF2 cannot read the archive\n", argv[1]);
	OTF2_Reader_Close(r);
	for (uint32_t i = 0; i < d.nstr; i++)
		free(d.str[i]);
	free(d.str);
	free(d.locs);
	if (fflush(stdout) != 0)
		rc = 1;
	return rc;
}

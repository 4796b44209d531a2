/*
 * cuda_pcsamp_data.c - PC sampling buffers and records.  Two
 * CUpti_PCSamplingData buffers: the configured one (CUPTI writes the
 * records of a stop or of disable there) and one for cuptiPCSamplingGetData.
 * They are separate because GetData on the configured buffer overwrites a
 * stop's records before they are read (seen on the H100); the
 * configured buffer is always consumed first.  Records are aggregated per
 * (cubin CRC, function index, PC offset, correlation id) in an
 * open-addressing table.
 */
#include "cuda_pcsamp_internal.h"

#include <stdlib.h>
#include <string.h>

#include "papi.h"
#include "services/err_detail.h"

struct rec {
	uint64_t crc, pc;
	uint32_t fidx, corr;
	char *func;      /* mangled, owned */
	char *kernel;    /* demangled function, owned (lazily) */
	char *file;      /* owned, NULL when unknown */
	uint32_t line;
	int resolved;
	uint64_t samples;
	uint64_t *stall; /* nstall counts */
};

struct buf {
	CUpti_PCSamplingData d;
	CUpti_PCSamplingPCData *pcs;
	CUpti_PCSamplingStallReason *sr;
};

struct tly_pcs_data {
	size_t max_pcs, nstall;
	uint32_t *cupti_index;
	uint8_t *counted;  /* reason counts toward samples (not a "_not_issued" subset) */
	struct buf cfg, get;
	struct rec *rec;
	size_t nrec, caprec;
	size_t *slot;    /* record index + 1; 0 = empty */
	size_t nslot;    /* power of two */
	tally_gpu_pcsampling_stats_t st;
};

static int buf_init(struct buf *b, size_t max_pcs, size_t nstall)
{
	b->pcs = calloc(max_pcs, sizeof *b->pcs);
	b->sr = calloc(max_pcs * nstall, sizeof *b->sr);
	if (!b->pcs || !b->sr)
		return -1;
	b->d.size = sizeof b->d;
	b->d.collectNumPcs = max_pcs;
	b->d.pPcData = b->pcs;
	for (size_t i = 0; i < max_pcs; i++) {
		b->pcs[i].size = sizeof b->pcs[i];
		b->pcs[i].stallReason = b->sr + i * nstall;
	}
	return 0;
}

/* Ready for CUPTI to fill again. */
static void buf_reset(struct buf *b)
{
	b->d.totalNumPcs = 0;
	b->d.remainingNumPcs = 0;
	b->d.totalSamples = 0;
	b->d.droppedSamples = 0;
	b->d.nonUsrKernelsTotalSamples = 0;
	b->d.hardwareBufferFull = 0;
}

struct tly_pcs_data *tly_pcs_data_new(size_t max_pcs, size_t nstall, const uint32_t *cupti_index,
				      const uint8_t *counted)
{
	struct tly_pcs_data *d = calloc(1, sizeof *d);

	if (!d)
		return NULL;
	d->max_pcs = max_pcs;
	d->nstall = nstall;
	d->cupti_index = malloc((nstall ? nstall : 1) * sizeof *d->cupti_index);
	d->counted = malloc(nstall ? nstall : 1);
	if (!d->cupti_index || !d->counted || buf_init(&d->cfg, max_pcs, nstall) || buf_init(&d->get, max_pcs, nstall)) {
		tly_pcs_data_free(d);
		return NULL;
	}
	memcpy(d->cupti_index, cupti_index, nstall * sizeof *cupti_index);
	memcpy(d->counted, counted, nstall);
	d->st.size = sizeof d->st;
	return d;
}

void tly_pcs_data_free(struct tly_pcs_data *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nrec; i++) {
		free(d->rec[i].func);
		free(d->rec[i].kernel);
		free(d->rec[i].file);
		free(d->rec[i].stall);
	}
	free(d->rec);
	free(d->slot);
	free(d->cfg.pcs);
	free(d->cfg.sr);
	free(d->get.pcs);
	free(d->get.sr);
	free(d->cupti_index);
	free(d->counted);
	free(d);
}

CUpti_PCSamplingData *tly_pcs_data_cfgbuf(struct tly_pcs_data *d)
{
	return &d->cfg.d;
}

static size_t hash(uint64_t crc, uint32_t fidx, uint64_t pc, uint32_t corr)
{
	uint64_t h = crc * 0x9E3779B97F4A7C15ull;

	h ^= (pc + ((uint64_t)fidx << 40) + ((uint64_t)corr << 20)) * 0xC2B2AE3D27D4EB4Full;
	return (size_t)(h ^ (h >> 29));
}

static int rehash(struct tly_pcs_data *d)
{
	size_t n = d->nslot ? d->nslot * 2 : 1024;
	size_t *s = calloc(n, sizeof *s);

	if (!s)
		return -1;
	for (size_t i = 0; i < d->nrec; i++) {
		struct rec *r = &d->rec[i];
		size_t k = hash(r->crc, r->fidx, r->pc, r->corr) & (n - 1);

		while (s[k])
			k = (k + 1) & (n - 1);
		s[k] = i + 1;
	}
	free(d->slot);
	d->slot = s;
	d->nslot = n;
	return 0;
}

static struct rec *rec_new(struct tly_pcs_data *d, const CUpti_PCSamplingPCData *p)
{
	struct rec *r;

	if (d->nrec == d->caprec) {
		size_t cap = d->caprec ? d->caprec * 2 : 256;
		struct rec *nr = realloc(d->rec, cap * sizeof *nr);

		if (!nr)
			return NULL;
		d->rec = nr;
		d->caprec = cap;
	}
	r = &d->rec[d->nrec];
	memset(r, 0, sizeof *r);
	r->crc = p->cubinCrc;
	r->pc = p->pcOffset;
	r->fidx = p->functionIndex;
	r->corr = p->correlationId;
	r->func = strdup(p->functionName ? p->functionName : "?");
	r->stall = calloc(d->nstall ? d->nstall : 1, sizeof *r->stall);
	if (!r->func || !r->stall) {
		free(r->func);
		free(r->stall);
		return NULL;
	}
	d->nrec++;
	return r;
}

static struct rec *find_or_add(struct tly_pcs_data *d, const CUpti_PCSamplingPCData *p)
{
	size_t k;

	if (2 * (d->nrec + 1) > d->nslot && rehash(d) != 0)
		return NULL;
	k = hash(p->cubinCrc, p->functionIndex, p->pcOffset, p->correlationId) & (d->nslot - 1);
	for (; d->slot[k]; k = (k + 1) & (d->nslot - 1)) {
		struct rec *r = &d->rec[d->slot[k] - 1];

		if (r->crc == p->cubinCrc && r->fidx == p->functionIndex && r->pc == p->pcOffset &&
		    r->corr == p->correlationId)
			return r;
	}
	if (!rec_new(d, p))
		return NULL;
	d->slot[k] = d->nrec;
	return &d->rec[d->nrec - 1];
}

static void add_pc(struct tly_pcs_data *d, const CUpti_PCSamplingPCData *p)
{
	struct rec *r = find_or_add(d, p);

	if (!r) {
		d->st.lost_records++;
		return;
	}
	for (size_t j = 0; j < p->stallReasonCount; j++) {
		const CUpti_PCSamplingStallReason *s = &p->stallReason[j];

		for (size_t i = 0; i < d->nstall; i++)
			if (d->cupti_index[i] == s->pcSamplingStallReasonIndex) {
				r->stall[i] += s->samples;
				if (d->counted[i]) {
					r->samples += s->samples;
					d->st.record_samples += s->samples;
				}
				break;
			}
	}
}

/* Fold a filled buffer into the records and the counts, then reset it. */
static void consume(struct tly_pcs_data *d, struct buf *b)
{
	size_t n = b->d.totalNumPcs < d->max_pcs ? b->d.totalNumPcs : d->max_pcs;

	for (size_t i = 0; i < n; i++)
		add_pc(d, &b->pcs[i]);
	d->st.total_samples += b->d.totalSamples;
	d->st.dropped_samples += b->d.droppedSamples;
	d->st.nonuser_samples += b->d.nonUsrKernelsTotalSamples;
	d->st.hw_buffer_full += b->d.hardwareBufferFull ? 1 : 0;
	if (n || b->d.totalSamples)
		d->st.drains++;
	d->st.num_records = d->nrec;
	buf_reset(b);
}

void tly_pcs_data_take_cfgbuf(struct tly_pcs_data *d)
{
	consume(d, &d->cfg);
}

static int drain(struct tly_pcs_data *d, CUcontext ctx)
{
	const struct tly_cu_pcs_fns *f = tly_cu_pcs_fns(NULL);
	CUpti_PCSamplingGetDataParams p = { .size = CUpti_PCSamplingGetDataParamsSize };
	CUptiResult r;

	/* The configured buffer first: GetData may refill it. */
	consume(d, &d->cfg);
	p.ctx = ctx;
	p.pcSamplingData = &d->get.d;
	for (int guard = 0; guard < 1000000; guard++) {
		size_t remaining;

		buf_reset(&d->get);
		r = f->cuptiPCSamplingGetData(&p);
		/* OUT_OF_MEMORY: the hardware buffer filled up and samples were
		 * lost; that is reported in the stats, not as a failure. */
		if (r == CUPTI_ERROR_OUT_OF_MEMORY) {
			d->st.hw_buffer_full++;
			return PAPI_OK;
		}
		if (r != CUPTI_SUCCESS)
			return tly_cu_pti_err(r, "cuptiPCSamplingGetData");
		remaining = d->get.d.remainingNumPcs;
		consume(d, &d->get);
		if (remaining == 0)
			break;
	}
	return PAPI_OK;
}

int tly_pcs_data_drain(struct tly_pcs_data *d, CUcontext ctx)
{
	double t0 = tly_cu_time_start();
	int rc = drain(d, ctx);

	tly_cu_time_end("PC sampling: drain", t0);
	return rc;
}

void tly_pcs_data_stats(const struct tly_pcs_data *d, tally_gpu_pcsampling_stats_t *st)
{
	size_t size = st->size;

	*st = d->st;
	st->size = size;
	st->num_records = d->nrec;
}

static void resolve(struct rec *r)
{
	if (r->resolved)
		return;
	r->resolved = 1;
	if (tly_pcs_source(r->crc, r->func, r->pc, &r->file, &r->line) != 0) {
		r->file = NULL;
		r->line = 0;
	}
	r->kernel = tly_cu_demangle_dup(r->func);
}

int tly_pcs_data_walk(struct tly_pcs_data *d, tally_gpu_pc_sample_fn fn, void *ud,
		      const char *(*kernel_of)(void *, uint32_t), void *kud)
{
	for (size_t i = 0; i < d->nrec; i++) {
		struct rec *r = &d->rec[i];
		tally_gpu_pc_sample_t s = { .size = sizeof s };
		const char *k = r->corr && kernel_of ? kernel_of(kud, r->corr) : NULL;

		resolve(r);
		s.cubin_crc = r->crc;
		s.pc_offset = r->pc;
		s.function_index = r->fidx;
		s.correlation_id = r->corr;
		s.function = r->func;
		s.kernel = k ? k : r->kernel ? r->kernel : r->func;
		s.file = r->file;
		s.line = r->line;
		s.samples = r->samples;
		s.num_stalls = (int)d->nstall;
		s.stall = r->stall;
		if (fn(&s, ud))
			break;
	}
	return PAPI_OK;
}

/*
 * samp_drain.c - a thread of Tally's empties the sample rings and unwinds
 * each copied stack offline by DWARF call-frame information: libdwfl is
 * attached to this process with thread callbacks of our own, whose
 * registers are the sample's and whose memory is the sample's stack copy
 * (dwfl_attach_state), so dwfl_getthread_frames walks the CFI of the
 * modules the way it would walk a live thread, on code built without
 * frame pointers too.  A read outside the copy ends the walk: the path is
 * kept as deep as it got and counted as truncated.
 *
 * The drain runs every 50 ms, when a ring is half full (the handler posts
 * the semaphore) and once more at the write; never in a signal handler.
 */
#include "sampling/samp.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>

#include "runtime/rt_debuginfo.h"

#define DRAIN_MS 50

/* ---- (a, b) -> index ------------------------------------------------ */
static uint32_t hash2(int64_t a, int64_t b)
{
	uint64_t h = (uint64_t)a * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)b + 0x632be59bd9b4e019ULL) * 0xbf58476d1ce4e5b9ULL;

	return (uint32_t)(h ^ h >> 29);
}

int32_t tly_samp_map_get(const struct tly_samp_map *m, int64_t a, int64_t b)
{
	if (!m->cap)
		return -1;
	for (uint32_t i = hash2(a, b) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (m->val[i] < 0)
			return -1;
		if (m->key[2 * i] == a && m->key[2 * i + 1] == b)
			return m->val[i];
	}
}

static int grow_map(struct tly_samp_map *m)
{
	struct tly_samp_map n = { .cap = m->cap ? m->cap * 2 : 1024 };

	n.key = malloc(sizeof *n.key * 2 * n.cap);
	n.val = malloc(sizeof *n.val * n.cap);
	if (!n.key || !n.val) {
		free(n.key);
		free(n.val);
		return -1;
	}
	memset(n.val, 0xff, sizeof *n.val * n.cap);
	for (uint32_t i = 0; i < m->cap; i++)
		if (m->val[i] >= 0)
			tly_samp_map_put(&n, m->key[2 * i], m->key[2 * i + 1], m->val[i]);
	tly_samp_map_free(m);
	*m = n;
	return 0;
}

int tly_samp_map_put(struct tly_samp_map *m, int64_t a, int64_t b, int32_t v)
{
	uint32_t i;

	if ((m->n + 1) * 2 > m->cap && grow_map(m) != 0)
		return -1;
	for (i = hash2(a, b) & (m->cap - 1); m->val[i] >= 0; i = (i + 1) & (m->cap - 1))
		if (m->key[2 * i] == a && m->key[2 * i + 1] == b) {
			m->val[i] = v;
			return 0;
		}
	m->key[2 * i] = a;
	m->key[2 * i + 1] = b;
	m->val[i] = v;
	m->n++;
	return 0;
}

void tly_samp_map_free(struct tly_samp_map *m)
{
	free(m->key);
	free(m->val);
	memset(m, 0, sizeof *m);
}

/* ---- the thread's tree ---------------------------------------------- */
static int32_t node_of(struct tly_samp_thread *s, int32_t parent, uint64_t pc)
{
	int32_t n = tly_samp_map_get(&s->node_of, parent, (int64_t)pc);

	if (n >= 0)
		return n;
	if (s->nnodes == s->ncap) {
		int32_t cap = s->ncap ? s->ncap * 2 : 256;
		void *m = realloc(s->nodes, sizeof *s->nodes * (size_t)cap);

		if (!m)
			return -1;
		s->nodes = m;
		s->ncap = cap;
	}
	n = s->nnodes;
	if (tly_samp_map_put(&s->node_of, parent, (int64_t)pc, n) != 0)
		return -1;
	s->nodes[n].pc = pc;
	s->nodes[n].parent = parent;
	s->nnodes++;
	return n;
}

static int count(struct tly_samp_thread *s, int32_t node, int32_t region, int64_t w)
{
	int32_t c = tly_samp_map_get(&s->count_of, node, region);

	if (c < 0) {
		if (s->ncounts == s->ccap) {
			int32_t cap = s->ccap ? s->ccap * 2 : 256;
			void *m = realloc(s->counts, sizeof *s->counts * (size_t)cap);

			if (!m)
				return -1;
			s->counts = m;
			s->ccap = cap;
		}
		c = s->ncounts;
		if (tly_samp_map_put(&s->count_of, node, region, c) != 0)
			return -1;
		s->counts[c] = (struct tly_samp_count){ .node = node, .region = region };
		s->ncounts++;
	}
	s->counts[c].samples += w;
	return 0;
}

/* ---- offline unwinding over a copy (the drain thread, under the lock) - */
static struct {
	Dwfl *dwfl;
	int attached, failed;
	const struct tly_samp_rec *cur;   /* the sample being unwound */
	uint64_t pcs[TLY_SAMP_DEPTH];
	int n, out_of_copy, too_deep;
} unw;

static char *debuginfo_path;
static const Dwfl_Callbacks dwfl_cbs = {
	.find_elf = tly_rt_find_elf,             /* read, not mapped: rt_debuginfo.c */
	.find_debuginfo = tly_rt_find_debuginfo,   /* never debuginfod: rt_debuginfo.c */
	.debuginfo_path = &debuginfo_path,
};

static pid_t next_thread(Dwfl *d, void *arg, void **targ)
{
	(void)d;
	(void)arg;
	(void)targ;
	return 0;   /* no live threads: only the one get_thread makes up */
}

static bool get_thread(Dwfl *d, pid_t tid, void *arg, void **targ)
{
	(void)d;
	(void)tid;
	*targ = arg;
	return true;
}

static bool memory_read(Dwfl *d, Dwarf_Addr addr, Dwarf_Word *out, void *arg)
{
	const struct tly_samp_rec *r = unw.cur;

	(void)d;
	(void)arg;
	if (addr < r->sp || addr - r->sp + sizeof *out > r->stack_len) {
		unw.out_of_copy = 1;
		return false;
	}
	memcpy(out, (const unsigned char *)(r + 1) + (addr - r->sp), sizeof *out);
	return true;
}

static bool set_registers(Dwfl_Thread *th, void *arg)
{
	const struct tly_samp_rec *r = unw.cur;

	(void)arg;
#if defined(__x86_64__)
	dwfl_thread_state_register_pc(th, r->regs[16]);
	return dwfl_thread_state_registers(th, 0, 17, (const Dwarf_Word *)r->regs);
#elif defined(__aarch64__)
	dwfl_thread_state_register_pc(th, r->regs[32]);
	return dwfl_thread_state_registers(th, 0, 32, (const Dwarf_Word *)r->regs);
#else
	(void)th;
	(void)r;
	return false;
#endif
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_registers,
};

/* (Re)read the process's modules: once, and again for an address in a
 * module loaded since (dlopen). */
static int report(void)
{
	if (!unw.dwfl && !unw.failed && !(unw.dwfl = dwfl_begin(&dwfl_cbs)))
		unw.failed = 1;
	if (!unw.dwfl)
		return -1;
	tly_rt_find_elf_forget();   /* its maps are read again after this report */
	dwfl_report_begin(unw.dwfl);
	if (dwfl_linux_proc_report(unw.dwfl, getpid()) != 0) {
		dwfl_report_end(unw.dwfl, NULL, NULL);
		return -1;
	}
	if (dwfl_report_end(unw.dwfl, NULL, NULL) != 0)
		return -1;
	if (!unw.attached && dwfl_attach_state(unw.dwfl, NULL, getpid(), &thread_cbs, &unw))
		unw.attached = 1;
	return unw.attached ? 0 : -1;
}

Dwfl *tly_samp_dwfl(void)
{
	if (!unw.dwfl)
		report();
	return unw.dwfl;
}

static int on_frame(Dwfl_Frame *f, void *arg)
{
	Dwarf_Addr pc;
	bool act;

	(void)arg;
	if (!dwfl_frame_pc(f, &pc, &act) || !pc)
		return DWARF_CB_ABORT;
	if (unw.n == TLY_SAMP_DEPTH) {
		unw.too_deep = 1;
		return DWARF_CB_ABORT;
	}
	/* a return address is the instruction after the call: look up the call */
	unw.pcs[unw.n++] = act ? pc : pc - 1;
	return DWARF_CB_OK;
}

static void unwind_one(struct tly_samp_thread *s, const struct tly_samp_rec *r, int *reported)
{
	int32_t node = -1;
	uint64_t pc = r->regs[TLY_SAMP_NREGS - 1];

	unw.cur = r;
	unw.n = unw.out_of_copy = unw.too_deep = 0;
	if (!unw.dwfl || (!dwfl_addrmodule(unw.dwfl, pc) && !*reported)) {
		*reported = 1;
		report();
	}
	if (unw.attached)
		dwfl_getthread_frames(unw.dwfl, 1, on_frame, NULL);
	if (unw.n == 0)   /* not even the interrupted address */
		unw.pcs[unw.n++] = pc;
	for (int i = unw.n - 1; i >= 0 && (i == unw.n - 1 || node >= 0); i--)
		node = node_of(s, node, unw.pcs[i]);
	if (node < 0 || count(s, node, r->region, r->weight) != 0) {
		s->lost_unwind += r->weight;
		return;
	}
	s->kept += r->weight;
	s->truncated += (unw.out_of_copy || unw.too_deep) ? r->weight : 0;
}

static void drain_thread_ring(struct tly_samp_thread *s, int *reported)
{
	uint64_t tail = atomic_load_explicit(&s->tail, memory_order_relaxed);
	uint64_t head = atomic_load_explicit(&s->head, memory_order_acquire);
	struct timespec a, b;

	if (tail == head)
		return;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);   /* the CPU it costs, not its waits */
	while (tail < head) {
		const struct tly_samp_rec *r = (const void *)(s->buf + tail % s->cap);

		if (r->stack_len != UINT32_MAX)
			unwind_one(s, r, reported);
		tail += r->size;
		atomic_store_explicit(&s->tail, tail, memory_order_release);
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	s->unwind_ns += (b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec);
}

void tly_samp_drain_all(struct tly_samp_state *st)
{
	int reported = 0;

	for (struct tly_samp_thread *s = st->threads; s; s = s->next)
		drain_thread_ring(s, &reported);
}

static void *drain_main(void *arg)
{
	struct tly_samp_state *st = arg;

	for (;;) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += DRAIN_MS * 1000000L;
		ts.tv_sec += ts.tv_nsec / 1000000000L;
		ts.tv_nsec %= 1000000000L;
		while (sem_timedwait(&st->wake, &ts) != 0 && errno == EINTR)
			;
		pthread_mutex_lock(&st->lock);
		tly_samp_drain_all(st);
		pthread_mutex_unlock(&st->lock);
		if (atomic_load(&st->stopped))
			break;
	}
	return NULL;
}

void tly_samp_drain_start(struct tly_samp_state *st)
{
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);   /* the drain takes no signal of the program's */
	if (pthread_create(&st->drain, NULL, drain_main, st) == 0) {
		/* Tally's thread, not the program's, in top, gdb and perf */
		pthread_setname_np(st->drain, "tally-sampling");
		pthread_detach(st->drain);
		atomic_store(&st->drain_up, 1);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

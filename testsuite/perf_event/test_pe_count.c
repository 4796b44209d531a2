/*
 * test_pe_count.c - the user-space read arithmetic through resets and
 * counter wraps, for counters of 32 (arm PMUv3), 48 (x86) and 64 bits.
 *
 * A model of what the kernel keeps for one counting event drives
 * tly_pe_count_of (pe_count.h): it programs each period at -left with
 * left = half the counter's range (and keeps prev = -left, sign-extended),
 * takes the overflow interrupt when the counter wraps to 0 (accumulates,
 * programs the next period), and on PERF_EVENT_IOC_RESET reads the
 * counter (prev = the raw value) and zeroes the count.  After every step
 * the count read from (page offset, counter) must equal the true count
 * since the last reset and never be negative.  The plain sign-extending
 * sum is checked to go negative after a reset, so the rows exercise the
 * case that gave PAPI_read -2^32 + n in the arm64 guest.
 */
#include <stdint.h>

#include "components/perf_event/pe_count.h"
#include "tharness.h"

struct kmodel {
	unsigned w;
	uint64_t mask;
	uint64_t hw;     /* the counter register */
	uint64_t prev;   /* hw.prev_count */
	uint64_t count;  /* event->count */
	int64_t offset;  /* the page's offset */
	uint64_t truth;  /* events since the last reset */
	int sext_neg;    /* the sign-extending sum went negative */
};

static void page(struct kmodel *k) { k->offset = (int64_t)(k->count - k->prev); }

static void program(struct kmodel *k)
{
	uint64_t left = k->mask >> 1;

	k->prev = (uint64_t)0 - left;
	k->hw = ((uint64_t)0 - left) & k->mask;
	page(k);
}

static void update(struct kmodel *k)
{
	k->count += (k->hw - k->prev) & k->mask;
	k->prev = k->hw;
}

static void reset(struct kmodel *k)
{
	update(k);
	k->count = 0;
	k->truth = 0;
	page(k);
}

static void tick(struct kmodel *k, uint64_t n)
{
	while (n) {
		uint64_t room = k->mask - k->hw; /* events before the wrap, less one */

		if (n <= room) {
			k->hw += n;
			k->truth += n;
			return;
		}
		k->hw = 0; /* wrapped: the interrupt */
		k->truth += room + 1;
		n -= room + 1;
		update(k);
		program(k);
	}
}

static void check(struct kmodel *k, int line)
{
	unsigned shift = 64u - k->w;
	int64_t got = tly_pe_count_of(k->offset, k->hw, k->w);
	/* the old formula, in wrapping arithmetic (it is meant to go wrong) */
	int64_t sext = (int64_t)((uint64_t)k->offset + (uint64_t)((int64_t)(k->hw << shift) >> shift));

	th_at(line);
	if (sext < 0)
		k->sext_neg = 1;
	TH_CHECK(got >= 0);
	TH_EQ(got, (int64_t)k->truth);
}

static void run_width(unsigned w)
{
	struct kmodel k = { .w = w, .mask = w == 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1 };
	uint64_t half = k.mask >> 1;

	program(&k);
	check(&k, __LINE__);
	tick(&k, 1000);
	check(&k, __LINE__);
	reset(&k); /* the reset of a running counter */
	check(&k, __LINE__);
	tick(&k, 170000200);
	check(&k, __LINE__);
	tick(&k, half - 170001200 - 5); /* just before the wrap */
	check(&k, __LINE__);
	tick(&k, 10);  /* through it */
	check(&k, __LINE__);
	update(&k);    /* a read(2) in between changes nothing for user space */
	check(&k, __LINE__);
	tick(&k, 7);
	reset(&k);     /* a reset right after a wrap */
	check(&k, __LINE__);
	tick(&k, half / 3);
	check(&k, __LINE__);
	reset(&k);
	tick(&k, half - half / 3 - 1); /* up to the last count before the wrap */
	check(&k, __LINE__);
	if (w < 64) {
		tick(&k, 3 * k.mask); /* several wraps */
		check(&k, __LINE__);
	}
	update(&k);    /* schedule out and in: a new period */
	program(&k);
	check(&k, __LINE__);
	reset(&k);
	tick(&k, 12345);
	check(&k, __LINE__);
	printf("width %u: reads after resets right; the sign-extended sum alone %s\n", w,
	       k.sext_neg ? "went negative" : "never went negative");
	if (w < 64)
		TH_CHECK(k.sext_neg);
}

int main(void)
{
	run_width(32);
	run_width(48);
	run_width(64);
	return th_done();
}

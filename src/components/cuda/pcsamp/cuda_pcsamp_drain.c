/*
 * cuda_pcsamp_drain.c - the drain thread (a config's drain_ms,
 * TALLY_PCSAMP_DRAIN_MS: every enabled session drained at that period) and
 * the exit hook that stops it, then disables and drains every session.
 */
#include "cuda_pcsamp_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static void *drain_main(void *arg)
{
	(void)arg;
	tly_pcs_lock();
	while (!tly_pcs_reg.drain_stop) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += tly_pcs_reg.drain_ms / 1000;
		ts.tv_nsec += (long)(tly_pcs_reg.drain_ms % 1000) * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&tly_pcs_reg.wake, &tly_pcs_reg.lock, &ts);
		for (struct tly_pcs_sess *s = tly_pcs_reg.head; s && !tly_pcs_reg.drain_stop; s = s->next)
			if (s->enabled)
				tly_pcs_data_drain(s->data, s->ctx);
	}
	tly_pcs_unlock();
	return NULL;
}

/* At exit: stop the drain thread, then disable (and drain) every session. */
static void at_exit(void)
{
	int join;

	tly_pcs_lock();
	join = tly_pcs_reg.drain_on;
	tly_pcs_reg.drain_stop = 1;
	pthread_cond_broadcast(&tly_pcs_reg.wake);
	tly_pcs_unlock();
	if (join)
		pthread_join(tly_pcs_reg.drain_thr, NULL);
	tly_pcs_lock();
	tly_pcs_reg.drain_on = 0;
	for (struct tly_pcs_sess *s = tly_pcs_reg.head; s; s = s->next)
		tly_pcs_disable_locked(s);
	tly_pcs_unlock();
}

void tly_pcs_hooks_locked(const tally_gpu_pcsampling_config_t *c)
{
	if (!tly_pcs_reg.exit_hook)
		tly_pcs_reg.exit_hook = atexit(at_exit) == 0;
	if (c->drain_ms && !tly_pcs_reg.drain_on && !tly_pcs_reg.drain_stop) {
		tly_pcs_reg.drain_ms = c->drain_ms;
		tly_pcs_reg.drain_on = pthread_create(&tly_pcs_reg.drain_thr, NULL, drain_main, NULL) == 0;
	}
}

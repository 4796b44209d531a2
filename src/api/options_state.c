/*
 * options_state.c - library-wide option values (multiplex period, itimer):
 * kept here, below both papi_opts.c, which sets them, and the
 * multiplexing and overflow code, which reads them.
 */
#include "api/options_state.h"

#include <pthread.h>
#include <signal.h>
#include <sys/time.h>

#include "services/err_detail.h"

#define DEFAULT_MPX_NS 10000000 /* 10 ms, a scheduler tick or so */

static struct {
	pthread_mutex_t lock;
	int mpx_ns;
	PAPI_itimer_option_t itimer;
} opt = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.mpx_ns = DEFAULT_MPX_NS,
	.itimer = { ITIMER_PROF, SIGPROF, DEFAULT_MPX_NS, 0 },
};

int tly_opt_mpx_ns(void)
{
	pthread_mutex_lock(&opt.lock);
	int ns = opt.mpx_ns;
	pthread_mutex_unlock(&opt.lock);
	return ns;
}

void tly_opt_itimer(PAPI_itimer_option_t *out)
{
	pthread_mutex_lock(&opt.lock);
	*out = opt.itimer;
	pthread_mutex_unlock(&opt.lock);
}

int tly_opt_set_timing(int option, PAPI_option_t *ptr)
{
	int rc = PAPI_OK;

	pthread_mutex_lock(&opt.lock);
	if (option == PAPI_DEF_MPX_NS || option == PAPI_DEF_MPX_USEC) {
		long long ns = (long long)ptr->multiplex.ns * (option == PAPI_DEF_MPX_USEC ? 1000 : 1);

		if (ns <= 0 || ns > 0x7fffffff)
			rc = tly_err_set(PAPI_EINVAL, "multiplex period must be positive");
		else
			opt.mpx_ns = (int)ns;
	} else {
		const PAPI_itimer_option_t *it = &ptr->itimer;

		if ((it->itimer_num != ITIMER_REAL && it->itimer_num != ITIMER_VIRTUAL &&
		     it->itimer_num != ITIMER_PROF) || it->itimer_sig <= 0 || it->itimer_sig >= NSIG)
			rc = tly_err_set(PAPI_EINVAL, "itimer must be ITIMER_REAL/VIRTUAL/PROF with a valid signal");
		else if (option == PAPI_DEF_ITIMER_NS && it->ns <= 0)
			rc = tly_err_set(PAPI_EINVAL, "itimer period must be positive");
		else if (option == PAPI_DEF_ITIMER_NS)
			opt.itimer.ns = it->ns;
		else
			opt.itimer = *it;
	}
	pthread_mutex_unlock(&opt.lock);
	return rc;
}

/*
 * test_threads.c - PAPI_thread_init with a custom id function,
 * PAPI_thread_id, PAPI_register_thread / PAPI_unregister_thread,
 * PAPI_list_threads, PAPI_get_thr_specific / PAPI_set_thr_specific
 * (including PAPI_TLS_ALL_THREADS), PAPI_lock / PAPI_unlock (mutual
 * exclusion across threads, bad lock indices), and per-thread counting
 * of perf::TASK-CLOCK in registered threads.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include "api_util.h"
#include "fork_util.h"

#define NTHR 4

static _Thread_local unsigned long my_id;
static atomic_ulong next_id = 1000;

static unsigned long custom_id(void)
{
	if (my_id == 0)
		my_id = atomic_fetch_add(&next_id, 1);
	return my_id;
}

static pthread_barrier_t bar;
static unsigned long ids[NTHR];
static int vals[NTHR];
static int fails_in_threads;

#define T_EXPECT(cond) do { if (!(cond)) { \
	fprintf(stderr, "%s:%d: thread check failed: %s\n", __FILE__, __LINE__, #cond); \
	__atomic_add_fetch(&fails_in_threads, 1, __ATOMIC_RELAXED); } } while (0)

static void *registered_worker(void *arg)
{
	int k = (int)(long)arg;
	void *p = (void *)1;

	T_EXPECT(PAPI_register_thread() == PAPI_OK);
	T_EXPECT(PAPI_register_thread() == PAPI_OK); /* twice: harmless */
	ids[k] = PAPI_thread_id();
	T_EXPECT(ids[k] == custom_id());
	/* nothing stored yet in this thread */
	T_EXPECT(PAPI_get_thr_specific(PAPI_USR1_TLS, &p) == PAPI_OK && p == NULL);
	T_EXPECT(PAPI_set_thr_specific(PAPI_USR1_TLS, &vals[k]) == PAPI_OK);
	T_EXPECT(PAPI_set_thr_specific(PAPI_USR2_TLS, &ids[k]) == PAPI_OK);
	T_EXPECT(PAPI_get_thr_specific(PAPI_USR1_TLS, &p) == PAPI_OK && p == &vals[k]);
	T_EXPECT(PAPI_get_thr_specific(PAPI_USR2_TLS, &p) == PAPI_OK && p == &ids[k]);

	/* per-thread counting */
	int es = PAPI_NULL;
	long long v = 0, t0, t1;
	T_EXPECT(PAPI_create_eventset(&es) == PAPI_OK);
	T_EXPECT(PAPI_add_named_event(es, API_TASK_CLOCK) == PAPI_OK);
	th_clock_begin(); /* this thread's own extra time counts from here */
	T_EXPECT(PAPI_start(es) == PAPI_OK);
	t0 = th_thread_cpu_ns();
	th_spin_cpu_ns(20000000LL * (k + 1));
	t1 = th_thread_cpu_ns();
	T_EXPECT(PAPI_stop(es, &v) == PAPI_OK);
	T_EXPECT(th_clock_near((double)v, (double)(t1 - t0), th_clock_allowance_ns()));
	T_EXPECT(PAPI_cleanup_eventset(es) == PAPI_OK);
	T_EXPECT(PAPI_destroy_eventset(&es) == PAPI_OK);

	pthread_barrier_wait(&bar); /* main lists us here */
	pthread_barrier_wait(&bar);
	T_EXPECT(PAPI_unregister_thread() == PAPI_OK);
	pthread_barrier_wait(&bar);
	return NULL;
}

static int listed(const PAPI_thread_id_t *tids, int n, unsigned long id)
{
	for (int i = 0; i < n; i++)
		if (tids[i] == id)
			return 1;
	return 0;
}

static void test_threads_with_custom_ids(void)
{
	pthread_t th[NTHR];
	PAPI_thread_id_t tids[64];
	int n;

	TH_EQ(PAPI_thread_init(custom_id), PAPI_OK);
	TH_CHECK(PAPI_is_initialized() & PAPI_THREAD_LEVEL_INITED);
	TH_EQ(PAPI_thread_id(), custom_id());
	TH_EQ(PAPI_register_thread(), PAPI_OK);
	pthread_barrier_init(&bar, NULL, NTHR + 1);
	for (int k = 0; k < NTHR; k++)
		pthread_create(&th[k], NULL, registered_worker, (void *)(long)k);
	pthread_barrier_wait(&bar);

	/* all threads registered and listed under their custom ids */
	n = 64;
	TH_EQ(PAPI_list_threads(tids, &n), PAPI_OK);
	TH_CHECK(n >= NTHR + 1);
	for (int k = 0; k < NTHR; k++) {
		TH_CHECK(ids[k] >= 1000 && ids[k] != PAPI_thread_id());
		TH_CHECK(listed(tids, n, ids[k]));
	}
	TH_CHECK(listed(tids, n, PAPI_thread_id()));
	int count_only = 0;
	TH_EQ(PAPI_list_threads(NULL, &count_only), PAPI_OK);
	TH_EQ(count_only, n);
	int small = 2;
	TH_EQ(PAPI_list_threads(tids, &small), PAPI_OK);
	TH_CHECK(small <= 2);
	TH_EQ(PAPI_list_threads(tids, NULL), PAPI_EINVAL);
	int neg = -1;
	TH_EQ(PAPI_list_threads(tids, &neg), PAPI_EINVAL);

	/* every thread's USR1 value, gathered at once */
	unsigned long sid[64];
	void *sdata[64];
	PAPI_all_thr_spec_t spec = { 64, sid, sdata };
	/* with PAPI_TLS_ALL_THREADS the pointer argument is the spec itself */
	TH_EQ(PAPI_get_thr_specific(PAPI_USR1_TLS | PAPI_TLS_ALL_THREADS, (void **)&spec), PAPI_OK);
	TH_EQ(spec.num, n);
	for (int k = 0; k < NTHR; k++) {
		int found = 0;
		for (int i = 0; i < spec.num && i < 64; i++)
			if (sid[i] == ids[k]) {
				found = 1;
				TH_CHECK(sdata[i] == &vals[k]);
			}
		TH_CHECK(found);
	}

	pthread_barrier_wait(&bar);
	pthread_barrier_wait(&bar); /* they unregistered */
	n = 64;
	TH_EQ(PAPI_list_threads(tids, &n), PAPI_OK);
	for (int k = 0; k < NTHR; k++)
		TH_CHECK(!listed(tids, n, ids[k]));
	TH_CHECK(listed(tids, n, PAPI_thread_id()));
	for (int k = 0; k < NTHR; k++)
		pthread_join(th[k], NULL);
	TH_EQ(fails_in_threads, 0);
	pthread_barrier_destroy(&bar);
}

static void test_thr_specific_args(void)
{
	void *p = NULL;
	static const struct { int line; int tag; } bad[] = {
		{ __LINE__, -1 }, { __LINE__, PAPI_NUM_TLS }, { __LINE__, 99 },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		th_at(bad[i].line);
		TH_EQ(PAPI_set_thr_specific(bad[i].tag, &p), PAPI_EINVAL);
		TH_EQ(PAPI_get_thr_specific(bad[i].tag, &p), PAPI_EINVAL);
	}
	th_at(0);
	TH_EQ(PAPI_get_thr_specific(PAPI_USR1_TLS, NULL), PAPI_EINVAL);
	TH_EQ(PAPI_set_thr_specific(PAPI_USR2_TLS, &p), PAPI_OK);
	TH_EQ(PAPI_get_thr_specific(PAPI_USR2_TLS, &p), PAPI_OK);
	TH_CHECK(p == &p);
}

/* ---- PAPI_lock / PAPI_unlock ---- */
#define LOCK_THREADS 8
#define LOCK_ITERS 20000
static long shared_counter;
static int inside;
static int overlaps;

static void *lock_worker(void *arg)
{
	int lck = (int)(long)arg;

	for (int i = 0; i < LOCK_ITERS; i++) {
		if (PAPI_lock(lck) != PAPI_OK) {
			__atomic_add_fetch(&overlaps, 1000000, __ATOMIC_RELAXED);
			return NULL;
		}
		if (__atomic_exchange_n(&inside, 1, __ATOMIC_ACQ_REL))
			__atomic_add_fetch(&overlaps, 1, __ATOMIC_RELAXED);
		long c = shared_counter; /* deliberately non-atomic */
		if ((i & 1023) == 0)
			sched_yield();
		shared_counter = c + 1;
		__atomic_store_n(&inside, 0, __ATOMIC_RELEASE);
		PAPI_unlock(lck);
	}
	return NULL;
}

static void test_locks(void)
{
	static const struct { int line; int lck; } bad[] = {
		{ __LINE__, -1 }, { __LINE__, PAPI_NUM_LOCK }, { __LINE__, 99 },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		th_at(bad[i].line);
		TH_EQ(PAPI_lock(bad[i].lck), PAPI_EINVAL);
		TH_EQ(PAPI_unlock(bad[i].lck), PAPI_EINVAL);
	}
	th_at(0);
	for (int lck = PAPI_USR1_LOCK; lck < PAPI_NUM_LOCK; lck++) {
		pthread_t th[LOCK_THREADS];
		shared_counter = 0;
		overlaps = 0;
		for (int k = 0; k < LOCK_THREADS; k++)
			pthread_create(&th[k], NULL, lock_worker, (void *)(long)lck);
		for (int k = 0; k < LOCK_THREADS; k++)
			pthread_join(th[k], NULL);
		th_at(__LINE__);
		TH_EQ(overlaps, 0);
		TH_EQ(shared_counter, (long)LOCK_THREADS * LOCK_ITERS);
	}
	th_at(0);
	/* the two user locks are independent: holding one does not block the other */
	TH_EQ(PAPI_lock(PAPI_USR1_LOCK), PAPI_OK);
	TH_EQ(PAPI_lock(PAPI_USR2_LOCK), PAPI_OK);
	TH_EQ(PAPI_unlock(PAPI_USR2_LOCK), PAPI_OK);
	TH_EQ(PAPI_unlock(PAPI_USR1_LOCK), PAPI_OK);
}

static void *unregistered_unregister(void *arg)
{
	(void)arg;
	/* a thread that never registered has nothing to unregister */
	return (void *)(long)(PAPI_unregister_thread() != PAPI_OK);
}

/* Before PAPI_thread_init there is no id function: PAPI_EMISC. */
static void id_before_thread_init(void)
{
	api_init();
	TH_EQ(PAPI_thread_id(), (unsigned long)PAPI_EMISC);
	TH_CHECK(!(PAPI_is_initialized() & PAPI_THREAD_LEVEL_INITED));
	PAPI_shutdown();
}

int main(void)
{
	RUN_FRESH(id_before_thread_init);
	api_init();
	test_threads_with_custom_ids();
	test_thr_specific_args();
	test_locks();
	pthread_t t;
	void *r = NULL;
	pthread_create(&t, NULL, unregistered_unregister, NULL);
	pthread_join(t, &r);
	TH_CHECK(r != NULL);
	PAPI_shutdown();
	return th_done();
}

/*
 * test_thread_stress.c - acceptance: 32+ threads at once create, add
 * (perf::TASK-CLOCK, perf::PAGE-FAULTS), start, read, stop and destroy
 * event sets in loops while others only look events up.  Every return
 * code is checked, and each thread's TASK-CLOCK must match its own
 * CLOCK_THREAD_CPUTIME_ID within 5% (and PAGE-FAULTS its own touched
 * pages within 2%): counting is per thread.  Ids come from a
 * PAPI_thread_init'd function.  Run under ASan and TSan by CI.
 */
#include <sys/resource.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include "api_util.h"

#define NTHREADS 36
#define LOOPS 4
#define BUSY_NS 15000000LL
#define PAGES 500


static int fails;
static atomic_ulong next_id = 5000;
static _Thread_local unsigned long my_id;
static pthread_barrier_t start_line;
static int tc_code, pf_code;

static unsigned long custom_id(void)
{
	if (my_id == 0)
		my_id = atomic_fetch_add(&next_id, 1);
	return my_id;
}

#define T_EXPECT(cond, k) do { if (!(cond)) { \
	fprintf(stderr, "%s:%d: thread %d: failed: %s\n", __FILE__, __LINE__, (k), #cond); \
	__atomic_add_fetch(&fails, 1, __ATOMIC_RELAXED); } } while (0)
#define T_RC(call, want, k) do { int rc_ = (call); if (rc_ != (want)) { \
	fprintf(stderr, "%s:%d: thread %d: %s = %d, want %d\n", __FILE__, __LINE__, (k), #call, rc_, (want)); \
	__atomic_add_fetch(&fails, 1, __ATOMIC_RELAXED); } } while (0)

/* The thread's own minor faults so far, as the kernel accounts them. */
static long long thread_minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_minflt;
}

/* The thread's own context switches so far (voluntary and not). */
static long long thread_switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

/*
 * Faults counted between start and stop against the kernel's per-thread
 * account over (nearly) the same window: at least the touched pages, and
 * within 2% of RUSAGE_THREAD (which also sees a sanitizer runtime's own
 * shadow faults, real faults of this thread).  A few faults of slack cover
 * the calls between the rusage reads and PAPI_start/PAPI_stop.
 */
static int faults_match(long long counted, long long f0, long long f1)
{
	long long truth = f1 - f0;

	return counted >= PAGES && llabs(counted - truth) <= truth / 50 + 4;
}

static void count_loop(int k, int mid_read)
{
	static const char *const names[2] = { API_TASK_CLOCK, API_PAGE_FAULTS };

	for (int it = 0; it < LOOPS; it++) {
		int es = PAPI_NULL, st = 0;
		long long v[2] = { -1, -1 }, t0, t1, s0, s1, f0, f1, extra, w0, w1;
		struct th_clock c0;
		double lo, hi;

		T_RC(PAPI_create_eventset(&es), PAPI_OK, k);
		if (it & 1) {
			int codes[2] = { tc_code, pf_code };
			T_RC(PAPI_add_events(es, codes, 2), PAPI_OK, k);
		} else {
			for (int i = 0; i < 2; i++)
				T_RC(PAPI_add_named_event(es, names[i]), PAPI_OK, k);
		}
		T_RC(PAPI_num_events(es), 2, k);
		w0 = thread_switches();
		c0 = th_clock_now();
		s0 = th_thread_cpu_ns();
		T_RC(PAPI_start(es), PAPI_OK, k);
		t0 = th_thread_cpu_ns();
		f0 = thread_minflt();
		touch_fresh_pages(PAGES);
		th_spin_cpu_ns(BUSY_NS);
		if (mid_read) {
			T_RC(PAPI_read(es, v), PAPI_OK, k);
			T_EXPECT(faults_match(v[1], f0, thread_minflt()), k);
		}
		f1 = thread_minflt();
		t1 = th_thread_cpu_ns();
		T_RC(PAPI_stop(es, v), PAPI_OK, k);
		s1 = th_thread_cpu_ns();
		extra = th_clock_extra_ns(&c0);
		w1 = thread_switches();
		/* physical bounds (th_clock.h): the CPU time inside the counting,
		 * less what each of this thread's context switches books to its
		 * CPU time before perf's sched-in (tharness.h), below; the CPU
		 * time around it plus this thread's own measured extra time
		 * (steal, interrupts) and what each switch books to its
		 * task-clock after its CPU time stopped (tharness.h) above */
		lo = (double)(t1 - t0) - th_clock_slack((double)(t1 - t0)) - (double)(w1 - w0) * TH_SWITCH_LOSS_NS;
		hi = (double)(s1 - s0 + extra);
		hi += th_clock_slack(hi) + (double)(w1 - w0) * TH_SWITCH_GAP_NS;
		T_EXPECT(v[0] >= lo && v[0] <= hi, k);
		if (!(v[0] >= lo && v[0] <= hi))
			fprintf(stderr, "  thread %d: task-clock %lld not in [%.0f, %.0f]: thread cpu %lld "
				"(around: %lld, own extra time %lld ns, %lld context switches)\n", k, v[0], lo, hi,
				t1 - t0, s1 - s0, extra, w1 - w0);
		T_EXPECT(faults_match(v[1], f0, f1), k);
		if (!faults_match(v[1], f0, f1))
			fprintf(stderr, "  thread %d: page faults %lld vs %lld by RUSAGE_THREAD (%d pages touched)\n",
				k, v[1], f1 - f0, PAGES);
		T_RC(PAPI_state(es, &st), PAPI_OK, k);
		T_EXPECT(st == PAPI_STOPPED, k);
		T_RC(PAPI_cleanup_eventset(es), PAPI_OK, k);
		T_RC(PAPI_destroy_eventset(&es), PAPI_OK, k);
		T_EXPECT(es == PAPI_NULL, k);
	}
}

static void lookup_loop(int k)
{
	static const char *const names[] = {
		"perf::TASK-CLOCK", "perf::PAGE-FAULTS", "perf::CONTEXT-SWITCHES",
		"perf::CPU-CLOCK", "perf::MINOR-FAULTS",
	};
	for (int it = 0; it < 200; it++) {
		const char *nm = names[(it + k) % 5];
		int code = 0, back = 0;
		char out[PAPI_HUGE_STR_LEN];
		PAPI_event_info_t info;

		T_RC(PAPI_query_named_event(nm), PAPI_OK, k);
		T_RC(PAPI_event_name_to_code(nm, &code), PAPI_OK, k);
		T_RC(PAPI_event_code_to_name(code, out), PAPI_OK, k);
		T_RC(PAPI_event_name_to_code(out, &back), PAPI_OK, k);
		T_EXPECT(back == code, k);
		T_RC(PAPI_get_event_info(code, &info), PAPI_OK, k);
		T_EXPECT(strcmp(info.symbol, out) == 0, k);
		T_EXPECT(info.component_index == 0, k);
		T_RC(PAPI_query_named_event("perf::NO-SUCH-EVENT"), PAPI_ENOEVNT, k);
		T_RC(PAPI_get_event_info(PAPI_TOT_CYC, &info), PAPI_OK, k);
		T_EXPECT(info.count == 0, k);
	}
}

static void *worker(void *arg)
{
	int k = (int)(long)arg;

	pthread_barrier_wait(&start_line);
	switch (k % 4) {
	case 0: /* registers explicitly, custom id */
		T_RC(PAPI_register_thread(), PAPI_OK, k);
		T_EXPECT(PAPI_thread_id() == custom_id(), k);
		count_loop(k, 0);
		T_RC(PAPI_unregister_thread(), PAPI_OK, k);
		break;
	case 1: /* never registers: the library must cope */
		count_loop(k, 1);
		break;
	case 2: /* never registers, only names and infos */
		lookup_loop(k);
		break;
	case 3: /* registers, counts, and looks up too */
		T_RC(PAPI_register_thread(), PAPI_OK, k);
		count_loop(k, 1);
		lookup_loop(k);
		T_EXPECT(PAPI_thread_id() == custom_id(), k);
		T_RC(PAPI_unregister_thread(), PAPI_OK, k);
		break;
	}
	return NULL;
}

int main(void)
{
	pthread_t th[NTHREADS];

	api_init();
	TH_EQ(PAPI_thread_init(custom_id), PAPI_OK);
	TH_EQ(PAPI_event_name_to_code(API_TASK_CLOCK, &tc_code), PAPI_OK);
	TH_EQ(PAPI_event_name_to_code(API_PAGE_FAULTS, &pf_code), PAPI_OK);
	pthread_barrier_init(&start_line, NULL, NTHREADS);
	for (int k = 0; k < NTHREADS; k++)
		TH_EQ(pthread_create(&th[k], NULL, worker, (void *)(long)k), 0);
	for (int k = 0; k < NTHREADS; k++)
		pthread_join(th[k], NULL);
	pthread_barrier_destroy(&start_line);
	TH_EQ(fails, 0);
	/* the main thread still works afterwards */
	static const char *const tc[] = { API_TASK_CLOCK };
	int es = api_set_of(tc, 1);
	long long v = 0, t0, t1;
	th_clock_begin();
	TH_EQ(PAPI_start(es), PAPI_OK);
	t0 = th_thread_cpu_ns();
	th_spin_cpu_ns(BUSY_NS);
	t1 = th_thread_cpu_ns();
	TH_EQ(PAPI_stop(es, &v), PAPI_OK);
	TH_NEAR_CLOCK(v, t1 - t0);
	TH_EQ(PAPI_cleanup_eventset(es), PAPI_OK);
	TH_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
	PAPI_shutdown();
	return th_done();
}

/* gomp_regions.c - a GCC OpenMP program (libgomp) with nested parallel
 * regions, a dynamic `for`, a static `for`, `barrier`, `single` and
 * `critical`, for the test of GCC OpenMP measured inside libgomp
 * (check_gomp.py).  Each thread counts what it does and reads its own
 * clocks around the constructs, and at the end the program writes that
 * ground truth, one line per thread, to the file named by argv[1]:
 *
 *   thread <ktid> outer <n> inner <n> inner_master <n> loop <n> crit <n>
 *          body_cpu <ns> iter_cpu <ns> sync_cpu <ns> sync_wall <ns>
 *          total_cpu <ns> extra <ns>
 *
 * outer/inner: the parallel regions the thread ran (implicit tasks);
 * inner_master: those it started; loop: dynamic loops it took part in;
 * crit: critical sections it entered; body_cpu: its CPU time inside the
 * inner region's body; iter_cpu: inside the dynamic loop's iterations;
 * sync_cpu/sync_wall: CPU and wall time around the four constructs that
 * end in a barrier (dynamic for, barrier, single, static for); total_cpu:
 * the thread's CPU time at its last reading (after its last construct),
 * extra: its time between its first and last readings that was neither
 * CPU time nor run-queue wait
 * (harness/th_clock.h).  A last line "runtime <libs>" lists the OpenMP
 * runtimes mapped (/proc/self/maps): the program must still be on libgomp.
 * Then COMBINED (3) `parallel for` regions of 2 threads (the checker counts
 * their visits: the main thread's, and 2 x COMBINED over all threads).
 * The line of each `#pragma omp parallel` and `for` carries a SITE marker.
 */
#define _GNU_SOURCE 1
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "th_clock.h"

#define REPS 6
#define ITER 8
#define CRIT 3
#define COMBINED 3
#define MAXT 16

struct per {
	long ktid;
	int outer, inner, inner_master, loop, crit;
	long long body_cpu, iter_cpu, sync_cpu, sync_wall, total_cpu, extra;
	struct th_clock first;
	int seen;
};

static struct {
	pthread_mutex_t lock;
	struct per t[MAXT];
	int n;
	long shared;
} all = { .lock = PTHREAD_MUTEX_INITIALIZER };

static _Thread_local struct per *mine;

static struct per *me(void)
{
	if (mine)
		return mine;
	pthread_mutex_lock(&all.lock);
	if (all.n < MAXT) {
		mine = &all.t[all.n++];
		mine->ktid = (long)syscall(SYS_gettid);
		mine->first = th_clock_now();
	}
	pthread_mutex_unlock(&all.lock);
	return mine;
}

/* The CPU and wall time of the calling thread around a construct. */
struct window {
	long long cpu, wall;
};

static struct window open_window(void)
{
	struct window w = { .wall = (long long)th_now_ns() };

	w.cpu = th_thread_cpu_ns();
	return w;
}

static void close_window(struct per *p, struct window w)
{
	long long cpu = th_thread_cpu_ns();

	p->sync_cpu += cpu - w.cpu;
	p->sync_wall += (long long)th_now_ns() - w.wall;
}

/* The thread's last reading so far (the last one is its outer bound). */
static void last_reading(struct per *p)
{
	p->extra = th_clock_extra_ns(&p->first);
	p->total_cpu = th_thread_cpu_ns();
}

static __attribute__((noinline)) void inner_body(struct per *p)
{
	long long b0 = th_thread_cpu_ns();
	struct window w;

	p->inner++;
	p->inner_master += omp_get_thread_num() == 0;
	w = open_window();
	p->loop++;
#pragma omp for schedule(dynamic, 1) /* SITE loop */
	for (int i = 0; i < ITER; i++) {
		long long c = th_thread_cpu_ns();

		th_spin_cpu_ns(1000000);
		p->iter_cpu += th_thread_cpu_ns() - c;
	}
	close_window(p, w);
	w = open_window();
#pragma omp barrier
	close_window(p, w);
	w = open_window();
#pragma omp single
	th_spin_cpu_ns(500000);
	close_window(p, w);
	w = open_window();
#pragma omp for schedule(static)
	for (int i = 0; i < 64; i++)
		th_spin_rounds(100);
	close_window(p, w);
	for (int k = 0; k < CRIT; k++) {
#pragma omp critical
		all.shared++;
		p->crit++;
	}
	p->body_cpu += th_thread_cpu_ns() - b0;
	last_reading(p);
}

static void write_truth(const char *path)
{
	FILE *f = fopen(path, "w");
	char line[4096], seen[1024] = "";

	if (!f) {
		perror(path);
		return;
	}
	for (int i = 0; i < all.n; i++) {
		struct per *p = &all.t[i];

		fprintf(f, "thread %ld outer %d inner %d inner_master %d loop %d crit %d body_cpu %lld "
			"iter_cpu %lld sync_cpu %lld sync_wall %lld total_cpu %lld extra %lld\n", p->ktid,
			p->outer, p->inner, p->inner_master, p->loop, p->crit, p->body_cpu, p->iter_cpu,
			p->sync_cpu, p->sync_wall, p->total_cpu, p->extra);
	}
	FILE *maps = fopen("/proc/self/maps", "r");

	while (maps && fgets(line, sizeof line, maps)) {
		char *file = strchr(line, '/'), *base;

		if (!file)
			continue;
		file[strcspn(file, "\n")] = '\0';
		base = strrchr(file, '/') + 1;
		if ((!strncmp(base, "libgomp", 7) || !strncmp(base, "libomp", 6)) && !strstr(seen, base)
		    && strlen(seen) + strlen(base) + 2 < sizeof seen) {
			strcat(seen, " ");
			strcat(seen, base);
		}
	}
	if (maps)
		fclose(maps);
	fprintf(f, "runtime%s\n", seen);
	fclose(f);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gomp_regions TRUTH_FILE\n");
		return 2;
	}
	omp_set_max_active_levels(2);
	for (int r = 0; r < REPS; r++) {
#pragma omp parallel num_threads(2) /* SITE outer */
		{
			struct per *p = me();

			p->outer++;
#pragma omp parallel num_threads(2) /* SITE inner */
			inner_body(me());
			last_reading(p);
		}
	}
	/* a combined `parallel for` (GOMP_parallel_loop_*): its loop region
	 * opens with the parallel region on each thread of the team */
	for (int r = 0; r < COMBINED; r++) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(2) /* SITE combined */
		for (int i = 0; i < 4; i++)
			th_spin_rounds(1000);
	}
	last_reading(me());
	printf("critical sections: %ld (want %d)\n", all.shared, REPS * 4 * CRIT);
	write_truth(argv[1]);
	return all.shared == REPS * 4 * CRIT ? 0 : 1;
}

/*
 * jobs_app.c - a program for the non-MPI job tests (test_jobs.py); built
 * once plain and once with MPI (JOBS_MPI: MPI_Init/MPI_Finalize around
 * the same work).
 *
 *   jobs_app sleep     100 x 1 ms sleeps; prints "voluntary N": the
 *                      voluntary context switches of the loop
 *                      (/proc/self/status, the ground truth)
 *   jobs_app threads   3 pthreads and the main thread compute
 *   jobs_app thread_end  a pthread that enters a Tally region (found by
 *                      dlsym: the preload defines it) and ends 0.3 s
 *                      before the process; prints its CPU clock around
 *                      that first call and at its end ("thread cpu
 *                      first B A end E", ns)
 *   jobs_app children  system(), popen(), fork()+exit(), fork()+exec()
 *   jobs_app work      a little computation (processes of a job)
 *   jobs_app wait      sleeps up to 30 s (to be killed: partial files)
 * Every mode prints "pid N" first.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef JOBS_MPI
#include <mpi.h>
#endif

static volatile double sink;

static void compute(long n)
{
	double s = 0;

	for (long i = 1; i <= n; i++)
		s += 1.0 / (double)i;
	sink = s;
}

static long voluntary(void)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "voluntary_ctxt_switches:", 24))
			v = atol(line + 24);
	if (f)
		fclose(f);
	return v;
}

static void do_sleep(void)
{
	struct timespec ms = { 0, 1000000 };
	long v0 = voluntary();

	for (int i = 0; i < 100; i++)
		nanosleep(&ms, NULL);
	printf("voluntary %ld\n", voluntary() - v0);
}

static void *thread_main(void *arg)
{
	(void)arg;
	compute(20000000);
	return NULL;
}

static long long thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *ending_main(void *arg)
{
	void (*begin)(const char *) = (void (*)(const char *))dlsym(RTLD_DEFAULT, "tally_region_begin");
	void (*end)(const char *) = (void (*)(const char *))dlsym(RTLD_DEFAULT, "tally_region_end");
	long long b, a, e;

	(void)arg;
	compute(5000000);
	b = thread_cpu_ns();
	if (begin)
		begin("ending");
	a = thread_cpu_ns();
	compute(10000000);
	if (end)
		end("ending");
	compute(5000000);
	e = thread_cpu_ns();
	printf("thread cpu first %lld %lld end %lld\n", b, a, e);
	fflush(stdout);
	return NULL;
}

static void do_thread_end(void)
{
	pthread_t t;

	pthread_create(&t, NULL, ending_main, NULL);
	pthread_join(t, NULL);
	usleep(300000);
}

static void do_threads(void)
{
	pthread_t t[3];

	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, thread_main, NULL);
	compute(20000000);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
}

static int do_children(void)
{
	char buf[64];
	FILE *p;
	pid_t c;
	int st, bad = 0;

	bad |= system("mkdir -p child_dir; hostname > /dev/null") != 0;
	p = popen("echo hello", "r");
	bad |= !p || !fgets(buf, sizeof buf, p);
	if (p)
		bad |= pclose(p) != 0;
	c = fork();
	if (c == 0) {
		compute(1000000);
		exit(0);    /* runs the exit handlers: the runtime must not write */
	}
	bad |= c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	c = fork();
	if (c == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	bad |= c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	compute(2000000);
	return bad;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "work";
	int rc = 0;

#ifdef JOBS_MPI
	MPI_Init(&argc, &argv);
#endif
	printf("pid %ld\n", (long)getpid());
	fflush(stdout);
	if (!strcmp(mode, "sleep"))
		do_sleep();
	else if (!strcmp(mode, "threads"))
		do_threads();
	else if (!strcmp(mode, "thread_end"))
		do_thread_end();
	else if (!strcmp(mode, "children"))
		rc = do_children();
	else if (!strcmp(mode, "wait"))
		sleep(30);
	else
		compute(5000000);
#ifdef JOBS_MPI
	MPI_Finalize();
#endif
	return rc;
}

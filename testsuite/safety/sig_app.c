/*
 * sig_app.c - a program for the signal tests (run_sigterm.sh): 4 threads
 * allocate and free blocks of varied sizes (so a signal lands while one of
 * them holds the allocator's lock) for argv[1] seconds, then it exits 0.
 * "ready" goes to stdout once the threads run.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static atomic_int stop;

static void *churn(void *arg)
{
	unsigned x = (unsigned)(size_t)arg * 2654435761u + 1;
	void *keep[64] = { 0 };

	while (!atomic_load(&stop)) {
		unsigned k = (x = x * 1103515245u + 12345u) >> 26;

		free(keep[k]);
		keep[k] = malloc(16 + (x >> 8) % 65536);
		if (keep[k])
			memset(keep[k], 1, 16);
	}
	for (int i = 0; i < 64; i++)
		free(keep[i]);
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 5;
	struct timespec t = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };
	pthread_t th[4];

	for (size_t i = 0; i < 4; i++)
		if (pthread_create(&th[i], NULL, churn, (void *)i) != 0)
			return 3;
	printf("ready\n");
	fflush(stdout);
	nanosleep(&t, NULL);
	atomic_store(&stop, 1);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	return 0;
}

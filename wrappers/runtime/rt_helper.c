/*
 * rt_helper.c - the helper commands of a wrapper script are not ranks.
 *
 * Clusters and launchers start a job's processes through wrapper scripts
 * (srun wrappers, container entry points, `torchrun --no-python wrap.sh`)
 * that run short commands before they exec the program:
 * `cd "$(dirname "$0")"`, `basename`, `sed`, `hostname`.  Those commands
 * inherit the preload and the launcher's RANK/WORLD_SIZE; each used to
 * write a piece as that rank, so two `dirname`s completed the set and took
 * the job's file name (issue 50: ddp.h5 held a 2-rank job of `dirname`
 * with 0 kernels; the real job's file became ddp.1.h5; with one process
 * per node, each helper wrote a job of one rank under the requested name).
 *
 * The rule: a shell left unmeasured by name (TALLY_EXCLUDE: sh, bash, ...)
 * leaves its pid in TALLY_INTERNAL_WRAPPER.  A process that finds another
 * pid there was started by the wrapper (a command substitution, a
 * pipeline, a plain command line); the program the wrapper exec()s keeps
 * the wrapper's pid and is the rank, as before.  A process started by the
 * wrapper is its helper, not a rank of a job of several processes, when
 * it is a system command (its executable in /bin, /usr/bin, /sbin or
 * /usr/sbin, not an interpreter: python) that did no work of a rank: used
 * less than HELPER_NS of CPU time (CPU, not wall time: a helper on a busy
 * machine waits long and computes little), never called MPI_Init,
 * registered one thread.  A helper writes nothing (said at verbosity 2;
 * coreutils close stderr at their exit, before Tally's handler, so most
 * say nothing).  A program of the user's
 * run by the wrapper without exec (`./app` or `python train.py` as the
 * script's last line) is the rank, however short.  Processes
 * the measured program itself starts are TALLY_INTERNAL_PARENT's
 * (rt_state.c), unchanged.
 */
#include "runtime/rt.h"
#include "runtime/rt_helper.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tally_shared.h"

#define WRAPPER_VAR "TALLY_INTERNAL_WRAPPER"
#define HELPER_NS 1000000000LL   /* CPU time: a rank's program computes more than a wrapper's helper */

static const char *const shells[] = { "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox" };
static const char *const system_dirs[] = { "/bin/", "/usr/bin/", "/sbin/", "/usr/sbin/" };

/* Set once at start-up (before any thread of the program), read at the end. */
static atomic_int by_wrapper;

void tly_rt_helper_mark_wrapper(const char *exe)
{
	char pid[32];

	for (size_t i = 0; exe && i < sizeof shells / sizeof *shells; i++)
		if (!strcmp(exe, shells[i])) {
			snprintf(pid, sizeof pid, "%ld", (long)getpid());
			setenv(WRAPPER_VAR, pid, 1);
			return;
		}
}

/* A system command: its executable in a system directory, not Python. */
static int system_command(void)
{
	char exe[512];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	const char *base;

	if (n <= 0)
		return 0;
	exe[n] = '\0';
	base = strrchr(exe, '/');
	if (!base || !strncmp(base + 1, "python", 6))
		return 0;
	for (size_t i = 0; i < sizeof system_dirs / sizeof *system_dirs; i++)
		if (!strncmp(exe, system_dirs[i], strlen(system_dirs[i])) && !strchr(exe + strlen(system_dirs[i]), '/'))
			return 1;
	return 0;
}

void tly_rt_helper_note_start(void)
{
	const char *w = tly_env_raw(WRAPPER_VAR);

	atomic_store(&by_wrapper, w && *w && atol(w) != (long)getpid() && system_command());
}

int tly_rt_helper_skip(const struct tly_rt_proc *p, int64_t now)
{
	/* a launcher's job of one process too (torchrun --no-python
	 * --nproc_per_node=1: each helper wrote its own wrap.h5 and the
	 * program's file became wrap.3.h5); a shell script run alone under
	 * tally-run, no launcher, keeps measuring the commands it runs */
	if (!atomic_load(&by_wrapper) || (p->job.size <= 1 && !p->job.known) || p->in_mpi_job)
		return 0;
	if (p->cpu_ns >= HELPER_NS || p->nthreads > 1)
		return 0;
	tly_rt_log(2, "%s (pid %ld), started by the wrapper script of rank %d, ran %.3f s (%.3f s of CPU) and did "
		   "no work of a rank: a helper command, not written (the rank is the program the wrapper runs)",
		   p->exe, p->pid, p->rank, (double)(now - p->start_ns) / 1e9, (double)p->cpu_ns / 1e9);
	return 1;
}

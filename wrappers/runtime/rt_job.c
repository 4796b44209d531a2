/*
 * rt_job.c - the job a process belongs to, from its launcher's
 * environment, for programs that never call MPI_Init.
 *
 * torchrun, srun, mpirun and mpiexec tell every process its rank and the
 * job's size in environment variables; they also name the job (Slurm's
 * job and step, PMIx's namespace, torchrun's run id, or its rendezvous
 * MASTER_ADDR:MASTER_PORT).  A process of a job
 * of two or more writes its piece into a job directory beside the final
 * file; the process that writes the last piece merges them into the one
 * job file (output/h5_merge.c), the schema the MPI path writes.  Without
 * an identity from the launcher, RANK/WORLD_SIZE set by hand (processes
 * started one by one, `RANK=0 WORLD_SIZE=2 tally-run -- app &`, each under
 * a parent of its own: timeout, nohup, tally-run) name the job by the
 * process that set those variables: the nearest ancestor whose own
 * environment does not hold this RANK and WORLD_SIZE (its pid and start
 * time) and the size.  Two jobs started together from one shell, each by
 * a subshell or a script of its own, or in sessions of their own
 * (setsid), have two launchers and two ids; the session would be one.
 * Jobs that one process starts directly, with the same variables, cannot
 * be told apart: rt_job_dir.c finds two processes claiming a rank and
 * then merges nothing.  For other launchers the parent process (its pid
 * and start time) stands for the job: every process a launcher starts on
 * a node has the same parent.
 *
 * Whether the program is an MPI program (it links libmpi) decides when GPU
 * metrics start: an MPI program's at MPI_Init, where the ranks agree on
 * the schedule and on who profiles a shared GPU; any other program's when
 * the runtime starts.
 */
#include "runtime/rt_job.h"
#include "runtime/rt_log.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tally_shared.h"

/* Launchers' variables, most specific first: torchrun's RANK is the
 * training rank even when torchrun itself runs under srun or mpirun. */
static const struct {
	const char *rank, *size[3], *launcher;
} rank_vars[] = {
	{ "RANK", { "WORLD_SIZE" }, "torchrun" },
	{ "OMPI_COMM_WORLD_RANK", { "OMPI_COMM_WORLD_SIZE" }, "Open MPI" },
	{ "PMIX_RANK", { "OMPI_COMM_WORLD_SIZE", "SLURM_NTASKS", "PMI_SIZE" }, "PMIx" },
	{ "PMI_RANK", { "PMI_SIZE" }, "PMI" },
	{ "SLURM_PROCID", { "SLURM_NTASKS" }, "Slurm" },
};

static int env_int(const char *name, int *v)
{
	const char *s = name ? tly_env_raw(name) : NULL;
	char *end;
	long x;

	if (!s || !*s)
		return 0;
	x = strtol(s, &end, 10);
	if (*end || x < 0 || x > 10000000)
		return 0;
	*v = (int)x;
	return 1;
}

/* Keep letters, digits, '.', '-' and '_': the id becomes part of a name. */
static void safe_copy(char *dst, size_t len, const char *prefix, const char *src)
{
	size_t at = (size_t)snprintf(dst, len, "%s", prefix);

	for (; *src && at + 1 < len; src++)
		dst[at++] = (*src >= 'a' && *src <= 'z') || (*src >= 'A' && *src <= 'Z') || (*src >= '0' && *src <= '9')
			|| *src == '.' || *src == '-' || *src == '_' ? *src : '_';
	dst[at < len ? at : len - 1] = '\0';
}

/* Fields 4 (the parent) and 22 (start time in clock ticks since boot) of
 * /proc/<pid>/stat; 0 when unreadable. */
static unsigned long long proc_stat(long pid, long *ppid)
{
	char path[64], buf[1024], *p;
	unsigned long long v = 0;
	long pp = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	p = fgets(buf, sizeof buf, f) ? strrchr(buf, ')') : NULL;
	fclose(f);
	if (!p || sscanf(p + 2, "%*c %ld %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
			 &pp, &v) != 2)
		return 0;
	if (ppid)
		*ppid = pp;
	return v;
}

unsigned long long tly_rt_start_ticks(long pid)
{
	return proc_stat(pid, NULL);
}

/* 1 when the environment pid was started with holds both entries
 * ("RANK=1", "WORLD_SIZE=2"); 0 when not or unreadable.  Read as a
 * stream: each NUL-terminated entry is compared byte by byte. */
static int env_holds(long pid, const char *a, const char *b)
{
	char path[64], buf[16384];
	size_t la = strlen(a), lb = strlen(b), pos = 0;
	int fd, found = 0, ma = 1, mb = 1;
	ssize_t n;

	snprintf(path, sizeof path, "/proc/%ld/environ", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return 0;
	while (found != 3 && (n = read(fd, buf, sizeof buf)) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == '\0') {
				found |= (ma && pos == la) | (mb && pos == lb) << 1;
				pos = 0;
				ma = mb = 1;
				continue;
			}
			ma = ma && pos < la && a[pos] == buf[i];
			mb = mb && pos < lb && b[pos] == buf[i];
			pos++;
		}
	}
	close(fd);
	return found == 3;
}

/* The process that launched this one: the nearest ancestor whose own
 * environment lacks this process's RANK and WORLD_SIZE (tally-run,
 * timeout or env between carry them; the shell, subshell or script that
 * set them does not).  Its pid; *start its start time. */
static long launcher(const struct tly_rt_job *j, unsigned long long *start)
{
	char a[48], b[48];
	long pid = (long)getppid(), up = 0;

	snprintf(a, sizeof a, "RANK=%d", j->rank);
	snprintf(b, sizeof b, "WORLD_SIZE=%d", j->size);
	for (int depth = 0; depth < 64 && pid > 1 && env_holds(pid, a, b); depth++) {
		if (!proc_stat(pid, &up) || up < 1)
			break;
		pid = up;
	}
	*start = proc_stat(pid, NULL);
	return pid;
}

unsigned long long tly_rt_job_top_start(const struct tly_rt_job *j)
{
	char a[48], b[48];
	long pid = (long)getppid(), top = (long)getpid(), up = 0;

	snprintf(a, sizeof a, "RANK=%d", j->rank);
	snprintf(b, sizeof b, "WORLD_SIZE=%d", j->size);
	for (int depth = 0; depth < 64 && pid > 1 && env_holds(pid, a, b); depth++) {
		if (!proc_stat(pid, &up) || up < 1)
			break;
		top = pid;
		pid = up;
	}
	return proc_stat(top, NULL);
}

/* RANK/WORLD_SIZE without a run id: torchrun's rendezvous address when
 * set (every worker has it), else the launching process and the size. */
static void by_hand(struct tly_rt_job *j)
{
	const char *addr = tly_env_raw("MASTER_ADDR"), *port = tly_env_raw("MASTER_PORT");
	char buf[96];

	if (addr && *addr && port && *port) {
		snprintf(buf, sizeof buf, "%s-%s-w%d", addr, port, j->size);
		safe_copy(j->id, sizeof j->id, "torch", buf);
	} else {
		unsigned long long start;
		long pid = launcher(j, &start);

		snprintf(j->id, sizeof j->id, "l%ld-%llu-w%d", pid, start, j->size);
	}
}

static void job_id(struct tly_rt_job *j)
{
	const char *own = tly_env_raw("TALLY_INTERNAL_JOB"), *slurm = tly_env_raw("SLURM_JOB_ID");
	const char *step = tly_env_raw("SLURM_STEP_ID"), *pmix = tly_env_raw("PMIX_NAMESPACE");
	const char *ompi = tly_env_raw("OMPI_MCA_ess_base_jobid"), *torch = tly_env_raw("TORCHELASTIC_RUN_ID");
	char buf[96];

	if (own && *own) {
		safe_copy(j->id, sizeof j->id, "", own);
	} else if (slurm && *slurm) {
		snprintf(buf, sizeof buf, "%s.%s", slurm, step ? step : "0");
		safe_copy(j->id, sizeof j->id, "slurm", buf);
	} else if (pmix && *pmix) {
		safe_copy(j->id, sizeof j->id, "pmix", pmix);
	} else if (ompi && *ompi) {
		safe_copy(j->id, sizeof j->id, "ompi", ompi);
	} else if (torch && *torch && strcmp(torch, "none")) {
		safe_copy(j->id, sizeof j->id, "torch", torch);
	} else if (!strcmp(j->launcher, "torchrun")) {
		by_hand(j);
	} else {
		long pp = (long)getppid();

		snprintf(j->id, sizeof j->id, "p%ld-%llu", pp, proc_stat(pp, NULL));
	}
}

int tly_rt_job_env(struct tly_rt_job *j)
{
	memset(j, 0, sizeof *j);
	j->size = 1;
	for (size_t i = 0; i < sizeof rank_vars / sizeof *rank_vars; i++) {
		int r, n = 0;

		if (!env_int(rank_vars[i].rank, &r))
			continue;
		for (int k = 0; k < 3 && !n; k++)
			if (!env_int(rank_vars[i].size[k], &n))
				n = 0;
		if (n < 1 || r >= n)
			continue;
		j->rank = r;
		j->size = n;
		j->known = 1;
		snprintf(j->launcher, sizeof j->launcher, "%s", rank_vars[i].launcher);
		job_id(j);
		return 1;
	}
	return 0;
}

/* "<dir>/<name>.h5" -> "<dir>/<name>.<id>.parts"; a name that already
 * ends in "-<id>" (the default name of a job without MPI) gets
 * "<dir>/<name>.parts", not the id twice. */
void tly_rt_job_dir(const char *final, const struct tly_rt_job *j, char *buf, size_t len)
{
	size_t n = strlen(final), k = strlen(j->id);

	if (n > 3 && !strcmp(final + n - 3, ".h5"))
		n -= 3;
	if (k && n > k + 1 && final[n - k - 1] == '-' && !strncmp(final + n - k, j->id, k))
		snprintf(buf, len, "%.*s.parts", (int)n, final);
	else
		snprintf(buf, len, "%.*s.%s.parts", (int)n, final, j->id);
}

/* rank<digits>.h5 exactly: a piece placed by rt_job_dir.c, never another
 * name that happens to start so (rank00000.1.h5, stale-*) */
static int is_piece(const char *name)
{
	size_t n = strlen(name), k = 4;

	if (strncmp(name, "rank", 4) || n < 8 || strcmp(name + n - 3, ".h5"))
		return 0;
	while (k < n - 3 && name[k] >= '0' && name[k] <= '9')
		k++;
	return k == n - 3;
}

/* The job directory itself, never a link put in its place. */
static DIR *open_job_dir(const char *dir)
{
	int fd = tly_safe_open_dir(dir);   /* no link but the process's own /proc/self/fd/N */
	struct stat st;

	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))) {
		close(fd);   /* not the job directory rt_exit.c makes: a directory of another, or open to others */
		fd = -1;
	}
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d && fd >= 0)
		close(fd);
	return d;
}

int tly_rt_job_pieces(const char *dir)
{
	DIR *d = open_job_dir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += is_piece(e->d_name);
	closedir(d);
	return n;
}

/* The process whose piece completes the set merges it; O_EXCL on a
 * marker makes that one process even when two finish together. */
int tly_rt_job_claim_merge(const char *dir, int size)
{
	struct stat st;
	DIR *d;
	int fd;

	if (tly_rt_job_pieces(dir) < size || !(d = open_job_dir(dir)))
		return 0;
	/* pieces of two jobs met here (rt_job_dir.c): nothing is merged */
	fd = fstatat(dirfd(d), "ambiguous", &st, AT_SYMLINK_NOFOLLOW) == 0 ? -1
		: tly_safe_file_at(dirfd(d), "merging", O_WRONLY, 0600, 0);
	closedir(d);
	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

/* The directory holding `dir`, opened by the safe-file service. */
static int dir_parent(const char *dir)
{
	char parent[1200];
	const char *slash = strrchr(dir, '/');

	snprintf(parent, sizeof parent, "%.*s", slash ? (slash == dir ? 1 : (int)(slash - dir)) : 1,
		 slash ? dir : ".");
	return tly_safe_open_dir(parent);
}

/* Remove the pieces, the marker and the directory after a merge. */
void tly_rt_job_clean(const char *dir)
{
	DIR *d = open_job_dir(dir);
	struct dirent *e;
	struct stat st;
	int rc, pfd = -1;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (is_piece(e->d_name) || !strcmp(e->d_name, "merging"))
			(void)tly_safe_remove_at(dirfd(d), e->d_name, 0, 0);   /* in the checked job directory */
	rc = fstat(dirfd(d), &st) == 0 ? 0 : -errno;
	closedir(d);
	if (!rc && (rc = pfd = dir_parent(dir)) >= 0)
		rc = tly_safe_remove_at(pfd, strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir, 1,
					(unsigned long long)st.st_ino);   /* empty only: stale-* pieces stay, said */
	if (pfd >= 0)
		close(pfd);
	if (rc && rc != -ENOENT && rc != -ENOTEMPTY)
		tly_rt_log(1, "cannot remove the job directory %s: %s", dir, strerror(-rc));
}

static int needs_mpi(struct dl_phdr_info *info, size_t size, void *data)
{
	const ElfW(Dyn) *dyn = NULL;
	const char *strtab = NULL;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
	for (const ElfW(Dyn) *d = dyn; d && d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_STRTAB)
			strtab = (const char *)d->d_un.d_ptr;
	for (const ElfW(Dyn) *d = dyn; d && strtab && d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_NEEDED && strstr(strtab + d->d_un.d_val, "libmpi"))
			*(int *)data = 1;
	return 1;   /* the first object is the program: stop there */
}

int tly_rt_program_links_mpi(void)
{
	int yes = 0;

	dl_iterate_phdr(needs_mpi, &yes);
	return yes;
}

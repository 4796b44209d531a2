/*
 * mpi_lifecycle.c - MPI_Init/MPI_Init_thread start a rank's measurement,
 * MPI_Finalize writes the job file (collectively, on a communicator of
 * the tool's own so its collectives never match the application's),
 * MPI_Abort leaves the calling rank's partial file.  C and Fortran.
 */
#include "mpi/mpi_support.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/out_job.h"
#include "output/output.h"
#include "runtime/rt_parts.h"
#include "tally_shared.h"

static struct {
	int started;
	MPI_Comm comm;
	sigjmp_buf jb;   /* MPI_Finalize's, for the exit watchdog */
} life = { .comm = MPI_COMM_NULL };

static void rank_start(void)
{
	struct tly_rt_proc *p = tly_rt_proc();
	int64_t t0;
	int init = 0;

	if (!tly_rt_enabled() || life.started)
		return;
	PMPI_Initialized(&init);
	if (!init)
		return;
	t0 = tly_rt_now();
	p->mpi_init_cpu_ns = -tly_rt_thread_cpu_ns();
	life.started = 1;
	PMPI_Comm_dup(MPI_COMM_WORLD, &life.comm);
	PMPI_Comm_rank(life.comm, &p->rank);
	PMPI_Comm_size(life.comm, &p->nranks);
	/* an MPI job's default name is rank 0's tally-<program>-<date>-<time>-<pid>.h5,
	 * handed to every rank (the job-id name is for jobs without MPI, whose
	 * processes cannot agree on a time) */
	p->in_mpi_job = 1;
	if (p->rank == 0)
		tly_out_choose_name(p->outname, sizeof p->outname, ".h5");
	PMPI_Bcast(p->outname, (int)sizeof p->outname, MPI_CHAR, 0, life.comm);
	tly_rt_parts_job_start(&life.comm);  /* the parts: passes/' one schedule per job, gpu/ */
	p->mpi_init_ns = tly_rt_now() - t0;
	p->mpi_init_cpu_ns += tly_rt_thread_cpu_ns();
}

/* Tests of the exit watchdog: TALLY_INTERNAL_TEST_STALL_RANK=r makes rank
 * r stop here, the others then wait in the writer's first collective. */
static void test_stall(int rank)
{
	const char *v = tly_env_raw("TALLY_INTERNAL_TEST_STALL_RANK");

	if (v && *v && atoi(v) == rank)
		for (;;)
			pause();
}

static void rank_finish(void)
{
	struct tly_rt_proc *p = tly_rt_proc();
	int rc;

	if (!life.started || p->finished || tly_rt_final_begin() != 0)
		return;
	tly_rt_stop_all();
	test_stall(p->rank);
	/* a job of one rank writes through HDF5's POSIX driver, as a serial
	 * program does: MPI-IO's set-up (its components load at the first
	 * file open) costs more than the whole write and shares nothing */
	if (p->opt.discard) {   /* --output-name=/dev/null: measured, nothing written (every rank sees it) */
		tly_rt_final_end(1);
		p->finished = 1;
		if (p->rank == 0)
			tly_rt_log(1, "measurement of %d rank(s) taken and discarded: the output is %s, nothing "
				   "written", p->nranks, p->outname);
		PMPI_Comm_free(&life.comm);
		return;
	}
	rc = p->nranks > 1 ? tly_out_write_job(&life.comm, p->outname, sizeof p->outname)
			   : tly_out_write(p->outname, sizeof p->outname, 0);
	tly_rt_final_end(rc == 0);
	if (rc == 0) {
		p->finished = 1;
		if (p->rank == 0)
			tly_rt_log(1, "measurement of %d rank(s) written to %s", p->nranks, p->outname);
	} else {
		/* every rank knows (the writer's phases end in agreement) */
		if (p->rank == 0)
			tly_rt_log(1, "the job file %s could not be written (%s); each rank writes its partial "
				   "file instead", p->outname, tly_out_why(rc));
		tly_rt_write_partial("job file not written");
	}
	PMPI_Comm_free(&life.comm);
}

/* rank_finish and the real finalize (Fortran's `real_f`, else for C,
 * ierr NULL, PMPI_Finalize) under the exit watchdog: a job never hangs at
 * its end (a full disk, a rank stuck in a collective). */
static int guarded_finalize(void (*real_f)(MPI_Fint *), MPI_Fint *ierr)
{
	volatile int rc = MPI_SUCCESS;

	if (sigsetjmp(life.jb, 1)) {
		tly_rt_guard_abandoned();
		if (ierr)
			*ierr = MPI_SUCCESS;
		return MPI_SUCCESS;
	}
	tly_rt_guard_arm(&life.jb);
	rank_finish();
	if (real_f)
		real_f(ierr);
	else if (!ierr)
		rc = PMPI_Finalize();
	tly_rt_guard_disarm();
	return rc;
}

TALLY_RT_EXPORT int MPI_Init(int *argc, char ***argv)
{
	int rc = PMPI_Init(argc, argv);

	rank_start();
	return rc;
}

TALLY_RT_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	int rc = PMPI_Init_thread(argc, argv, required, provided);

	rank_start();
	return rc;
}

TALLY_RT_EXPORT int MPI_Finalize(void)
{
	return guarded_finalize(NULL, NULL);
}

TALLY_RT_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode)
{
	if (life.started)
		tly_rt_write_partial("MPI_Abort");
	return PMPI_Abort(comm, errorcode);
}

/* ---- Fortran: forward to the MPI library's own symbol, then act ---- */
static struct {
	void *init[5], *init_thread[5], *finalize[5], *abort[5];
} fortran_syms;

typedef void (*f1_t)(MPI_Fint *);
typedef void (*f3_t)(MPI_Fint *, MPI_Fint *, MPI_Fint *);

static void f_init(int v, const char *sym, MPI_Fint *ierr)
{
	f1_t real = (f1_t)tly_mpi_fsym(&fortran_syms.init[v], sym, "ompi_init_f");

	if (real)
		real(ierr);
	rank_start();
}

static void f_init_thread(int v, const char *sym, MPI_Fint *req, MPI_Fint *prov, MPI_Fint *ierr)
{
	f3_t real = (f3_t)tly_mpi_fsym(&fortran_syms.init_thread[v], sym, "ompi_init_thread_f");

	if (real)
		real(req, prov, ierr);
	rank_start();
}

static void f_finalize(int v, const char *sym, MPI_Fint *ierr)
{
	f1_t real = (f1_t)tly_mpi_fsym(&fortran_syms.finalize[v], sym, "ompi_finalize_f");
	MPI_Fint none;

	guarded_finalize(real, real ? ierr : &none);   /* no symbol: finish only */
}

static void f_abort(int v, const char *sym, MPI_Fint *comm, MPI_Fint *code, MPI_Fint *ierr)
{
	f3_t real = (f3_t)tly_mpi_fsym(&fortran_syms.abort[v], sym, "ompi_abort_f");

	if (life.started)
		tly_rt_write_partial("MPI_Abort");
	if (real)
		real(comm, code, ierr);
}

#define TLY_F1(sym, v, fn) \
	TALLY_RT_EXPORT void sym(MPI_Fint *ierr) { fn(v, #sym, ierr); }
#define TLY_F3(sym, v, fn) \
	TALLY_RT_EXPORT void sym(MPI_Fint *a, MPI_Fint *b, MPI_Fint *ierr) { fn(v, #sym, a, b, ierr); }

TLY_F1(mpi_init, 0, f_init)
TLY_F1(mpi_init_, 1, f_init)
TLY_F1(mpi_init__, 2, f_init)
TLY_F1(MPI_INIT, 3, f_init)
TLY_F1(mpi_init_f08_, 4, f_init)
TLY_F3(mpi_init_thread, 0, f_init_thread)
TLY_F3(mpi_init_thread_, 1, f_init_thread)
TLY_F3(mpi_init_thread__, 2, f_init_thread)
TLY_F3(MPI_INIT_THREAD, 3, f_init_thread)
TLY_F3(mpi_init_thread_f08_, 4, f_init_thread)
TLY_F1(mpi_finalize, 0, f_finalize)
TLY_F1(mpi_finalize_, 1, f_finalize)
TLY_F1(mpi_finalize__, 2, f_finalize)
TLY_F1(MPI_FINALIZE, 3, f_finalize)
TLY_F1(mpi_finalize_f08_, 4, f_finalize)
TLY_F3(mpi_abort, 0, f_abort)
TLY_F3(mpi_abort_, 1, f_abort)
TLY_F3(mpi_abort__, 2, f_abort)
TLY_F3(MPI_ABORT, 3, f_abort)
TLY_F3(mpi_abort_f08_, 4, f_abort)

/* The tool's communicator for the writer (MPI_COMM_NULL before Init). */
void *tly_mpi_tool_comm(void)
{
	return life.started ? &life.comm : NULL;
}

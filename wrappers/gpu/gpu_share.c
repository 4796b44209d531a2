/*
 * gpu_share.c - one profiling rank per GPU.  A GPU's counters serve one
 * process at a time: a second rank starting the Range Profiler on the same
 * GPU gets CUPTI_ERROR_HARDWARE_BUSY, and which rank wins is a race.  At
 * MPI_Init the ranks compare (host, CUDA_VISIBLE_DEVICES, device) and the
 * lowest rank of each GPU profiles it; the others say so and collect no
 * GPU metrics.  Collective on the tool's communicator (every rank takes
 * part, with or without GPU metrics, so it never deadlocks).
 */
#include "gpu/gpu_rt.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tally_shared.h"

static uint64_t key_hash(int device)
{
	const char *cvd = tly_env_raw("CUDA_VISIBLE_DEVICES");
	char key[512], host[256] = "";

	gethostname(host, sizeof host - 1);
	snprintf(key, sizeof key, "%s|%s|%d", host, cvd ? cvd : "*", device);
	return tly_fnv1a(TLY_FNV_BASIS, key, strlen(key)) | 1;   /* 0 means "no GPU metrics" */
}

int tly_gpu_share_owner(void *comm_ptr, int device, int wants)
{
	struct tly_rt_proc *p = tly_rt_proc();
	uint64_t mine = wants ? key_hash(device) : 0, *all;
	int n = 1, ok, owner = p->rank;

	if (!comm_ptr)
		return owner;
	PMPI_Comm_size(*(MPI_Comm *)comm_ptr, &n);
	all = calloc((size_t)n, sizeof *all);
	ok = all != NULL;   /* every rank learns whether all can take part */
	PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, *(MPI_Comm *)comm_ptr);
	if (!ok) {
		free(all);
		return owner;
	}
	PMPI_Allgather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, *(MPI_Comm *)comm_ptr);
	for (int r = 0; wants && r < n; r++)
		if (all[r] == mine) {
			owner = r;
			break;
		}
	free(all);
	return owner;
}

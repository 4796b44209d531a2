/*
 * gpu_share.h - one profiling process per physical GPU (gpu_share.c).
 */
#ifndef TALLY_GPU_SHARE_H
#define TALLY_GPU_SHARE_H

/* Claim the physical GPU `uuid` for this process (1), or learn who holds
 * it (0: *owner_rank, -1 when unknown, and *owner_pid). */
int tly_gpu_share_claim(const char *uuid, int *owner_rank, long *owner_pid);

#endif /* TALLY_GPU_SHARE_H */

/*
 * nccl_scope_app.c - NCCL calls from a worker thread, as DDP makes them
 * (run_nccl_scope.sh): the main thread sets up the communicator, then
 * opens 'step' and inside it 'backward' (NVTX ranges, as a training loop
 * does) while a worker thread with no region of its own calls
 * ncclAllReduce 3 times (PyTorch's autograd thread); the main thread then
 * calls it once itself inside 'step'; after 'step' is closed another
 * worker calls it twice, with no region open in the process.  The calls go
 * to libnccl_stub.so (nccl_stub.c), which marks them with NCCL's NVTX
 * domain as NCCL does.
 */
#include <pthread.h>
#include <stdio.h>

#include <nvtx3/nvToolsExt.h>

int ncclCommInitRank(void **comm, int nranks, int rank);
int ncclAllReduce(int ms);

#define CALL_MS 5

static void *worker(void *arg)
{
	int n = *(const int *)arg;

	for (int i = 0; i < n; i++)
		ncclAllReduce(CALL_MS);
	return NULL;
}

static void on_worker(int n)
{
	pthread_t th;

	if (pthread_create(&th, NULL, worker, &n) == 0)
		pthread_join(th, NULL);
}

int main(void)
{
	void *comm;

	ncclCommInitRank(&comm, 1, 0);
	nvtxRangePushA("step");
	nvtxRangePushA("backward");
	on_worker(3);   /* the worker runs while 'step / backward' is open */
	nvtxRangePop();
	ncclAllReduce(CALL_MS);   /* the main thread's own call, in 'step' */
	nvtxRangePop();
	on_worker(2);   /* no region open in the process */
	printf("CALLS backward 3 step 1 root 2\n");
	return 0;
}

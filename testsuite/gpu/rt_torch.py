#!/usr/bin/env python3
"""rt_torch.py [mpi|dist] - a small PyTorch training loop for the runtime's
non-MPI tests on the GPU machine (run_rt_nompi.sh).

  (none)  a plain script: a linear model, 5 steps of SGD on cuda:0
  mpi     the same between MPI_Init and MPI_Finalize, called through the
          process's global symbols (the preloaded runtime's wrappers), so
          the same kernels run inside an MPI job
  dist    one process of torchrun: gloo all_reduce of a CPU tensor, then
          the steps on cuda:0 (every process shares the one GPU)
"""
import ctypes
import os
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else ""
if mode == "mpi":
    ctypes.CDLL("libmpi.so.40", mode=ctypes.RTLD_GLOBAL)
    glob = ctypes.CDLL(None)
    glob.MPI_Init(None, None)
if mode == "dist":
    import torch.distributed as dist
    dist.init_process_group("gloo")
    t = torch.ones(4) * (dist.get_rank() + 1)
    dist.all_reduce(t)
    print(f"rank {dist.get_rank()} of {dist.get_world_size()}: all_reduce {t.tolist()}")

torch.manual_seed(0)
dev = torch.device("cuda:0")
model = torch.nn.Linear(256, 256).to(dev)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(1024, 256, device=dev)
y = torch.randn(1024, 256, device=dev)
for step in range(5):
    opt.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
torch.cuda.synchronize()
print(f"pid {os.getpid()} loss {loss.item():.4f}")
if mode == "dist":
    dist.destroy_process_group()
if mode == "mpi":
    glob.MPI_Finalize()

#!/usr/bin/env python3
"""torch_ddp.py [--steps N] - an unmodified-style DistributedDataParallel
training loop, one process per GPU, as torchrun starts it (NCCL backend,
LOCAL_RANK's GPU chosen with torch.cuda.set_device after the process
started).  A DDP communication hook counts the gradient all-reduces and
their bytes (then runs the default all-reduce).  Prints per rank
'LOSS <rank> <step> <value>', 'ALLREDUCE <rank> <calls> <bytes>',
'GRAD_BYTES <rank> <bytes of all gradients>' and 'DEVICE <rank> <index>
<uuid>'.  The same program under torchrun --nproc_per_node=1 is the
single-process reference: every rank computes the same batch (seeded),
so the compute kernels' work is the same in every rank.  The loop's
NVTX ranges: 'step', and 'backward' around loss.backward(), where the
autograd thread calls DDP's all-reduces (issue 50: listed under
'step / backward')."""
import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=10)
    a = ap.parse_args()
    if not torch.cuda.is_available():
        print("SKIP: no CUDA device for PyTorch")
        raise SystemExit(77)
    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.manual_seed(1234)
    dev = torch.device("cuda", local)
    model = torch.nn.Sequential(torch.nn.Linear(512, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 1024),
                                torch.nn.ReLU(), torch.nn.Linear(1024, 10)).to(dev)
    ddp = DDP(model, device_ids=[local])
    seen = {"calls": 0, "bytes": 0}

    def hook(state, bucket):
        buf = bucket.buffer()
        seen["calls"] += 1
        seen["bytes"] += buf.numel() * buf.element_size()
        fut = dist.all_reduce(buf.div_(dist.get_world_size()), async_op=True).get_future()
        return fut.then(lambda f: f.value()[0])

    ddp.register_comm_hook(None, hook)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(256, 512, device=dev)
    y = torch.randint(0, 10, (256,), device=dev)
    losses = []
    for i in range(a.steps):
        with torch.cuda.nvtx.range("step"):
            loss = torch.nn.functional.cross_entropy(ddp(x), y)
            opt.zero_grad(set_to_none=True)
            with torch.cuda.nvtx.range("backward"):
                loss.backward()   # DDP's all-reduces: called from the autograd thread
            opt.step()
        losses.append(loss)
    torch.cuda.synchronize()
    grad = sum(p.numel() * p.element_size() for p in model.parameters())
    props = torch.cuda.get_device_properties(local)
    out = [f"LOSS {rank} {i} {l.item():.9e}" for i, l in enumerate(losses)]
    out += [f"ALLREDUCE {rank} {seen['calls']} {seen['bytes']}", f"GRAD_BYTES {rank} {grad}",
            f"DEVICE {rank} {local} GPU-{props.uuid}"]
    # one write: the ranks share stdout, and lines written one by one interleave
    os.write(1, ("\n".join(out) + "\n").encode())
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""torch_profiler_count.py - the application's own CUPTI tool: run a few
matrix products and element-wise kernels under torch.profiler (CPU and
CUDA activities) and print 'CUDA_EVENTS <n>' (kernel events recorded).
The coexistence test compares n with and without Tally."""
import torch
from torch.profiler import ProfilerActivity, profile


def main():
    if not torch.cuda.is_available():
        print("SKIP: no CUDA device for PyTorch")
        raise SystemExit(77)
    a = torch.randn(1024, 1024, device="cuda")
    b = torch.randn(1024, 1024, device="cuda")
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(5):
            c = a @ b
            c = torch.relu(c) + 1.0
        torch.cuda.synchronize()
    n = sum(1 for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA)
    print(f"CUDA_EVENTS {n}")


if __name__ == "__main__":
    main()

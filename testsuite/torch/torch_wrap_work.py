#!/usr/bin/env python3
"""torch_wrap_work.py - the program behind run_torch_wrap.sh's wrapper
script: on LOCAL_RANK's GPU, 20 matrix products with tanh; prints
'WORK <rank> <pid> <sum>' in one write."""
import os

import torch


def main():
    local = int(os.environ.get("LOCAL_RANK", "0"))
    rank = int(os.environ.get("RANK", "0"))
    torch.cuda.set_device(local)
    torch.manual_seed(1234)
    x = torch.randn(512, 512, device="cuda")
    for _ in range(20):
        x = (x @ x).tanh()
    torch.cuda.synchronize()
    os.write(1, f"WORK {rank} {os.getpid()} {float(x.sum()):.6e}\n".encode())


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""torch_train.py [--steps N] [--nvtx ranges|emit|none] [--seed S] - a small
MLP training loop on the GPU (the device tests' PyTorch program).

--nvtx ranges: torch.cuda.nvtx ranges step/forward/backward/optimizer
(backward's kernels run on the autograd thread, outside the launching
thread's 'backward' range); emit: torch.autograd.profiler.emit_nvtx(), a
range per operator.  Prints one 'LOSS <step> <value>' line per step and
'LOOP_S <seconds>' for the timed loop (after one warm-up step) and
'ALL_S <seconds>' for all the steps, the first included, so a checker can
compare runs with and without Tally."""
import argparse
import contextlib
import time

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--nvtx", choices=["ranges", "emit", "none"], default="ranges")
    ap.add_argument("--seed", type=int, default=1234)
    a = ap.parse_args()
    if not torch.cuda.is_available():
        print("SKIP: no CUDA device for PyTorch")
        raise SystemExit(77)
    torch.manual_seed(a.seed)
    torch.backends.cudnn.deterministic = True
    torch.use_deterministic_algorithms(True, warn_only=True)
    dev = torch.device("cuda")
    model = torch.nn.Sequential(torch.nn.Linear(512, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 1024),
                                torch.nn.ReLU(), torch.nn.Linear(1024, 10)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(256, 512, device=dev)
    y = torch.randint(0, 10, (256,), device=dev)
    rng = torch.cuda.nvtx.range if a.nvtx == "ranges" else (lambda _n: contextlib.nullcontext())
    emit = torch.autograd.profiler.emit_nvtx() if a.nvtx == "emit" else contextlib.nullcontext()

    def step(i):
        with rng("step"):
            with rng("forward"):
                loss = torch.nn.functional.cross_entropy(model(x), y)
            with rng("backward"):
                opt.zero_grad(set_to_none=True)
                loss.backward()
            with rng("optimizer"):
                opt.step()
        return loss

    with emit:
        torch.cuda.synchronize()
        t_all = time.perf_counter()
        losses = [step(0)]
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for i in range(1, a.steps):
            losses.append(step(i))
        torch.cuda.synchronize()
        t1 = time.perf_counter()
    for i, l in enumerate(losses):
        print(f"LOSS {i} {l.item():.9e}")
    print(f"LOOP_S {t1 - t0:.6f}")
    print(f"ALL_S {t1 - t_all:.6f}")


if __name__ == "__main__":
    main()

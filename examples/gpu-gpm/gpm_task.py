"""One task of examples/gpu-gpm/gpm.yaml, through PyTorch: `gemm` keeps the tensor cores busy with
bf16 matrix products; `spin` runs a one-block spin kernel (torch.cuda._sleep) back to back, which
NVML's utilisation reads as ~100 % busy while GPM's SM activity says ~1 of the SMs worked."""
import sys
import time

import torch

what, seconds = sys.argv[1], float(sys.argv[2])
torch.cuda.init()
until = time.monotonic() + seconds
if what == "gemm":
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    while time.monotonic() < until:
        for _ in range(20):
            c = a @ b
        torch.cuda.synchronize()
elif what == "spin":
    while time.monotonic() < until:
        torch.cuda._sleep(50_000_000)  # one block, one thread: tens of ms per launch
        torch.cuda.synchronize()
else:
    sys.exit(f"gpm_task.py: unknown task '{what}'")

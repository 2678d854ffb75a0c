"""One packed GPU task: allocates GIB GiB on the GPU it was given (PyTorch), holds it a moment so
the tasks sharing the GPU overlap, and reports what MPS gave it. Under `gpu_memory: 1G` a task
asking for more fails with CUDA's out-of-memory error: the limit is enforced by MPS, not counted."""
import json
import os
import sys
import time

import torch

gib = float(sys.argv[1])
block = torch.empty(int(gib * (1 << 30)), dtype=torch.uint8, device="cuda")
block.fill_(1)
torch.cuda.synchronize()
time.sleep(2)
with open(os.environ["SHARDRUN_RESULT"], "w") as f:
    json.dump({"held_gib": block.numel() / (1 << 30),
               "thread_percent": int(os.environ.get("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "100"))}, f)

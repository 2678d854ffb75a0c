#!/usr/bin/env python3
"""One member of a data-parallel PyTorch training (ddp.yaml): shardrun starts this script on
both ranks of a group with the torchrun environment (RANK, WORLD_SIZE, LOCAL_RANK,
MASTER_ADDR, MASTER_PORT), so init_process_group("gloo", init_method="env://") meets the
other member exactly as under `torchrun --nproc_per_node 2`.

Each member trains on its half of every global batch; DDP averages the gradients, so both
hold the same parameters at the end. Both record final_loss, val_accuracy and a checksum of
the parameters; shardrun keeps the group leader's (RANK 0).
"""
import shardrun
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def make_data(n, features, classes):
    g = torch.Generator().manual_seed(1234)
    centres = torch.randn(classes, features, generator=g) * 0.4  # overlapping classes: accuracy depends on the point
    labels = torch.randint(0, classes, (n,), generator=g)
    return centres[labels] + torch.randn(n, features, generator=g), labels


def main():
    p = shardrun.params()
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="env://")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(p["seed"])  # the same initial weights on every member (DDP also broadcasts rank 0's)
    x, y = make_data(p["samples"] + p["val_samples"], p["features"], p["classes"])
    x_train, y_train = x[: p["samples"]], y[: p["samples"]]
    x_val, y_val = x[p["samples"]:], y[p["samples"]:]
    model = DistributedDataParallel(torch.nn.Sequential(
        torch.nn.Linear(p["features"], p["hidden"]), torch.nn.ReLU(), torch.nn.Linear(p["hidden"], p["classes"])))
    optimizer = torch.optim.SGD(model.parameters(), lr=p["lr"], momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    shard = p["batch"] // world
    for epoch in range(p["epochs"]):
        order = torch.randperm(p["samples"], generator=torch.Generator().manual_seed(epoch))  # same order on all members
        for start in range(0, p["samples"], p["batch"]):
            idx = order[start + rank * shard:start + (rank + 1) * shard]  # this member's half of the global batch
            optimizer.zero_grad()
            loss = loss_fn(model(x_train[idx]), y_train[idx])
            loss.backward()
            optimizer.step()
    with torch.no_grad():
        val_accuracy = (model(x_val).argmax(dim=1) == y_val).float().mean()
        final_loss = loss_fn(model(x_train), y_train)
        checksum = sum(t.double().sum() for t in model.parameters())
    dist.destroy_process_group()
    print(f"rank {rank}: param_checksum {checksum.item()!r}")  # the same on every member
    shardrun.result(final_loss=final_loss, val_accuracy=val_accuracy, param_checksum=checksum, world_size=world)


if __name__ == "__main__":
    main()

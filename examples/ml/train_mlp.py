#!/usr/bin/env python3
"""One point of a PyTorch hyperparameter sweep (sweep.yaml): a small MLP on a synthetic
classification problem, CPU only, a few seconds per point.

Reads its parameters with shardrun.params() (typed as in the job file) and records
val_accuracy, final_loss and the per-epoch training loss with shardrun.result().
Install once: pip install torch numpy && pip install scripts/python (from the repository root).
"""
import shardrun
import torch


def make_data(n, features, classes, seed):
    """Gaussian blobs with a fixed seed: every point of the sweep sees the same data."""
    g = torch.Generator().manual_seed(seed)
    centres = torch.randn(classes, features, generator=g) * 0.4  # overlapping classes: accuracy depends on the point
    labels = torch.randint(0, classes, (n,), generator=g)
    x = centres[labels] + torch.randn(n, features, generator=g)
    return x, labels


def main():
    p = shardrun.params()
    torch.manual_seed(p["seed"])
    torch.set_num_threads(1)  # one core per rank: shardrun runs one task per rank
    x, y = make_data(p["samples"] + p["val_samples"], p["features"], p["classes"], seed=1234)
    x_train, y_train = x[: p["samples"]], y[: p["samples"]]
    x_val, y_val = x[p["samples"]:], y[p["samples"]:]
    model = torch.nn.Sequential(
        torch.nn.Linear(p["features"], p["hidden"]), torch.nn.ReLU(), torch.nn.Linear(p["hidden"], p["classes"]))
    optimizer = torch.optim.SGD(model.parameters(), lr=p["lr"], momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    losses = []
    for _ in range(p["epochs"]):
        order = torch.randperm(p["samples"])
        total = 0.0
        for start in range(0, p["samples"], p["batch"]):
            idx = order[start:start + p["batch"]]
            optimizer.zero_grad()
            loss = loss_fn(model(x_train[idx]), y_train[idx])
            loss.backward()
            optimizer.step()
            total += loss.item() * len(idx)
        losses.append(total / p["samples"])
    with torch.no_grad():
        val_accuracy = (model(x_val).argmax(dim=1) == y_val).float().mean()
    # torch scalars and tensors are taken as they are: the helper converts them.
    shardrun.result(val_accuracy=val_accuracy, final_loss=losses[-1], loss=torch.tensor(losses, dtype=torch.float64))


if __name__ == "__main__":
    main()

"""A NumPy reference of shardrun's `train` task kind: the same seeded blobs, Glorot-uniform
weights, MLP (ReLU hidden layers, softmax cross-entropy) and SGD with momentum, in float32.
Used by train_reference_test.py (loss curves must agree) and benchmarks/train/train_vs_numpy."""
import numpy as np

U64 = np.uint64
MASK = (1 << 64) - 1


def splitmix64(x):
    with np.errstate(over="ignore"):
        x = x + U64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> U64(30))) * U64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> U64(27))) * U64(0x94D049BB133111EB)
    return x ^ (x >> U64(31))


def uniform01(seed, stream, index):
    key = splitmix64(np.array([(seed ^ (stream * 0xD1B54A32D192ED03)) & MASK], dtype=np.uint64))[0]
    with np.errstate(over="ignore"):
        bits = splitmix64(key + np.asarray(index, dtype=np.uint64))
    return (bits >> U64(11)).astype(np.float64) * 2.0 ** -53


def gaussian_blobs(seed, rows, features, classes, noise, noise_stream):
    centers = (2.0 * uniform01(seed, 1, np.arange(classes * features)) - 1.0).reshape(classes, features)
    labels = np.arange(rows) % classes
    m = np.arange(rows * features, dtype=np.uint64)
    u1 = 1.0 - uniform01(seed, noise_stream, 2 * m)
    u2 = uniform01(seed, noise_stream, 2 * m + 1)
    gaussian = (np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)).reshape(rows, features)
    x = (centers[labels] + np.float64(np.float32(noise)) * gaussian).astype(np.float32)
    return x, labels.astype(np.int32)


def glorot_uniform(seed, layer, fan_in, fan_out):
    limit = np.sqrt(6.0 / (fan_in + fan_out))
    u = uniform01(seed, 10 + layer, np.arange(fan_in * fan_out))
    return ((2.0 * u - 1.0) * limit).astype(np.float32).reshape(fan_in, fan_out)


def train(features=32, classes=4, width=64, depth=2, samples=4096, batch=256, epochs=5, lr=0.05, momentum=0.9,
          noise=0.5, seed=0):
    """Returns the mean training loss of every epoch."""
    x, y = gaussian_blobs(seed, samples, features, classes, noise, 2)
    sizes = [features] + [width] * depth + [classes]
    weights = [glorot_uniform(seed, l, sizes[l], sizes[l + 1]) for l in range(len(sizes) - 1)]
    biases = [np.zeros(sizes[l + 1], np.float32) for l in range(len(sizes) - 1)]
    velocity = [np.zeros_like(p) for p in weights + biases]
    lr, momentum = np.float32(lr), np.float32(momentum)
    losses = []
    for _ in range(epochs):
        total = 0.0
        for s in range(samples // batch):
            rows = slice(s * batch, (s + 1) * batch)
            acts = [x[rows]]
            for l, (w, b) in enumerate(zip(weights, biases)):
                z = acts[-1] @ w + b
                acts.append(np.maximum(z, 0) if l + 1 < len(weights) else z)
            logits = acts[-1]
            shifted = logits - logits.max(axis=1, keepdims=True)
            log_sum = np.log(np.exp(shifted).sum(axis=1, keepdims=True))
            total += float((log_sum[:, 0] - shifted[np.arange(batch), y[rows]]).astype(np.float64).sum())
            grad = np.exp(shifted - log_sum)
            grad[np.arange(batch), y[rows]] -= 1
            grad *= np.float32(1.0 / batch)
            grads_w, grads_b = [None] * len(weights), [None] * len(weights)
            for l in range(len(weights) - 1, -1, -1):
                grads_b[l] = grad.sum(axis=0)
                grads_w[l] = acts[l].T @ grad
                if l > 0:
                    grad = (grad @ weights[l].T) * (acts[l] > 0)
            for p, g, v in zip(weights + biases, grads_w + grads_b, velocity):
                v *= momentum
                v += g
                p -= lr * v
        losses.append(total / ((samples // batch) * batch))
    return losses

"""One task of examples/npy-rows: embeds the rows [SHARDRUN_RANGE_START, SHARDRUN_RANGE_END)
and writes them as $SHARDRUN_RESULT_DIR/embedding.npy (float32, [rows, 384]: the last chunk
has fewer rows), and a scalar through $SHARDRUN_RESULT (JSON), the two channels side by side."""
import json
import os

import numpy as np

WIDTH = 384


def embedding(start, end):
    """A deterministic stand-in for a model: row i is sin(0.001 i + 0.01 j) over j < 384."""
    rows = np.arange(start, end, dtype=np.float64)[:, None]
    cols = np.arange(WIDTH, dtype=np.float64)[None, :]
    return np.sin(0.001 * rows + 0.01 * cols).astype("<f4")


def main():
    start, end = int(os.environ["SHARDRUN_RANGE_START"]), int(os.environ["SHARDRUN_RANGE_END"])
    block = embedding(start, end)
    np.save(os.path.join(os.environ["SHARDRUN_RESULT_DIR"], "embedding.npy"), block)
    with open(os.environ["SHARDRUN_RESULT"], "w") as f:
        json.dump({"row_count": end - start}, f)


if __name__ == "__main__":
    main()

"""Every quick example: the results file opens with xarray (open_dataset per group and
open_datatree, engine h5netcdf, no options), h5py and ncdump, and they show the values the
job produced (issue 11, point 1). Layouts and merge: xarray_layouts_test.py."""
import itertools
import os
import unittest

from xarray_check import check_results_file, ensure_xarray

ensure_xarray()

import h5py  # noqa: E402
import numpy as np  # noqa: E402

from harness import SOURCE_DIR, run, scratch_dir  # noqa: E402

# Each example shrunk to a second or two: (job file, --set overrides, tasks, ranks, sweep).
EXAMPLES = {
    "heat-sweep": ("heat-sweep.yaml", ["params.nx=16", "params.ny=16", "params.steps=10",
                                       "sweep.source={linspace: [0.0, 1.0, 3]}"], 9, 2,
                   {"alpha": [0.05, 0.1, 0.2], "source": [0.0, 0.5, 1.0]}),
    "gemm": ("gemm.yaml", ["params.repeats=1", "sweep.n=[8, 16]"], 4, 2,
             {"n": [8, 16], "dtype": ["float32", "float64"]}),
    "montecarlo": ("montecarlo.yaml", ["params.paths=40000", "sweep.strike=[90.0, 100.0]"], 2, 2,
                   {"strike": [90.0, 100.0]}),
    "blur": ("blur.yaml", ["params.height=16", "params.width=16", "data.items=16", "data.chunk=8"], 4, 2,
             {"sigma": [1.0, 3.0]}),
    "embed": ("embed.yaml", ["data.items=64", "data.chunk=32"], 2, 2, {}),
    "train-sweep": ("train-sweep.yaml", ["params.samples=256", "params.val_samples=64", "params.epochs=2",
                                         "sweep.lr=[0.05]", "sweep.batch=[64]", "sweep.width=[8, 16]"], 2, 2,
                    {"lr": [0.05], "batch": [64], "width": [8, 16]}),
    "exec-group": ("exec-group/exec-group.yaml", ["sweep.seed={range: [0, 2, 1]}"], 2, 2,
                   {"seed": [0, 1]}),
    # The CPU half (no GPU here): the cuda tasks would fail, as the example's comment says.
    "gpu-vs-cpu": ("gpu-vs-cpu.yaml", ["sweep.n=[16, 32]", "sweep.device=[cpu]"], 2, 2,
                   {"n": [16, 32], "device": ["cpu"]}),
    "gpu-vs-cpu-blur": ("gpu-vs-cpu-blur.yaml", ["sweep.height=[16, 32]", "sweep.device=[cpu]"], 2, 2,
                        {"height": [16, 32], "device": ["cpu"]}),
    # A data job with a `rows` field: results/embedding is one [items, 384] array (the short last
    # chunk takes its own rows), results/row_count one value a task.
    # Pinned to Debian's Python (NumPy): the example runs the python3 PATH finds.
    "npy-rows": ("npy-rows/npy-rows.yaml", ["data.items=500", "exec.python=/usr/bin/python3"], 2, 2, {}),
}


def run_example(test, name, output, extra=()):
    job, overrides, _, ranks, _ = EXAMPLES[name]
    sets = [arg for override in overrides + [f"output.path={output}"] for arg in ("--set", override)]
    proc = run(["run", os.path.join("examples", job), "-q", *sets, *extra], np=ranks, cwd=SOURCE_DIR)
    test.assertEqual(proc.returncode, 0, f"{name}: {proc.stdout}{proc.stderr}")
    return proc


class ExamplesOpenWithXarray(unittest.TestCase):
    def check_example(self, name, output):
        _, _, tasks, _, sweep = EXAMPLES[name]
        check_results_file(self, output, tasks)
        with h5py.File(output, "r") as f:
            self.assertTrue(bool(f.attrs["complete"]), name)
            self.assertEqual(f["tasks/status"][:].tolist(), [1] * tasks, name)
            # The sweep is the cartesian product of its axes, one task per point.
            names = list(sweep)
            seen = {tuple(_plain(f["params"][p].asstr()[i] if f["params"][p].dtype.kind == "O" else f["params"][p][i])
                          for p in names) for i in range(tasks)} if names else set()
            if names:
                self.assertEqual(seen, set(itertools.product(*sweep.values())), name)

    def test_every_quick_example(self):
        for name in EXAMPLES:
            with self.subTest(example=name):
                output = os.path.join(scratch_dir(), f"{name}.h5")
                run_example(self, name, output)
                self.check_example(name, output)
                self.check_values(name, output)

    def check_values(self, name, output):
        """A few values whose meaning is known, read through xarray."""
        import xarray as xr
        with xr.open_datatree(output, engine="h5netcdf") as tree:
            results = tree["results"].to_dataset()
            if name == "montecarlo":
                labelled = results.assign_coords(tree["params"].to_dataset().coords).swap_dims(task="strike")
                price = float(labelled["price"].sel(strike=100.0))
                self.assertAlmostEqual(price, 10.4506, delta=0.3)  # the closed form, within 3 sigma
            if name == "embed":
                rows = results["embedding"] if "embedding" in results else None
                if rows is not None:
                    norms = np.linalg.norm(rows.values.reshape(-1, rows.shape[-1]), axis=-1)
                    np.testing.assert_allclose(norms, 1.0, rtol=1e-4)
            if name == "blur":
                ranges = tree["ranges"].to_dataset()
                self.assertEqual(sorted(zip(ranges["start"].values.tolist(), ranges["end"].values.tolist())),
                                 [(0, 8), (0, 8), (8, 16), (8, 16)])
            if name == "exec-group":
                self.assertEqual(results["task_id"].values.tolist(), [0, 1])
                self.assertEqual(results["peer_rank"].values.tolist(), [1, 1])


def _plain(value):
    return value.item() if hasattr(value, "item") else value


if __name__ == "__main__":
    unittest.main()

"""`shardrun export OUT --grid FILE.nc`: a real lr x batch x model exec sweep (one failing task)
written as N-D variables over the sweep axes, read back with h5py (values, netCDF dimension
scales) and, when /opt/shardrun-pyenv exists (scripts/install-deps), with one xr.open_dataset.
zip, points and data jobs are exit 2 with one line and write nothing."""
import json
import math
import os
import subprocess
import sys
import unittest

from harness import run, scratch_dir
from jobs import h5py_module, write_job

h5py = h5py_module()
VENV_PYTHON = "/opt/shardrun-pyenv/bin/python"
INT64_MIN = -2**63

TRAINER = """
import json, os, sys
lr = float(os.environ["SHARDRUN_PARAM_LR"]); batch = int(os.environ["SHARDRUN_PARAM_BATCH"])
model = os.environ["SHARDRUN_PARAM_MODEL"]
if model == "cnn" and lr == 0.1 and batch == 64:
    sys.exit("diverged")
acc = round(0.9 - lr - batch / 1000 + (0.02 if model == "mlp" else 0), 6)
with open(os.environ["SHARDRUN_RESULT"], "w") as f:
    json.dump({"val_accuracy": acc, "epochs": batch // 8, "curve": [lr, 2 * lr, 3 * lr]}, f)
"""
LRS, BATCHES, MODELS = [0.001, 0.01, 0.1], [16, 64], ["mlp", "cnn"]
FAILED = (2, 1, 1)  # lr 0.1, batch 64, cnn


def accuracy(lr, batch, model):
    return round(0.9 - lr - batch / 1000 + (0.02 if model == "mlp" else 0), 6)


def exec_job(work, name, sweep, extra=""):
    return write_job(work, f"""
        name: {name}
        task: exec
        sweep: {sweep}
        {extra}
        output: {{path: {work}/{name}.h5}}
        exec:
          argv: [{sys.executable}, {work}/trainer.py]
          results: {{val_accuracy: float64, epochs: int64, curve: [float32, 3]}}
        """, name=f"{name}.yaml")


class ExportGridTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = scratch_dir()
        with open(os.path.join(cls.work, "trainer.py"), "w") as f:
            f.write(TRAINER)
        # batch as a range: the export must size axes as `run` does, not by counting list items.
        job = exec_job(cls.work, "grid", "{lr: [0.001, 0.01, 0.1], batch: {range: [16, 80, 48]}, model: [mlp, cnn]}")
        proc = run(["run", job, "-q"], np=2)
        assert proc.returncode == 1, proc.stderr  # one task fails on purpose
        cls.grid = f"{cls.work}/grid.nc"
        proc = run(["export", f"{cls.work}/grid.h5", "--grid", cls.grid])
        assert proc.returncode == 0, proc.stderr
        cls.stdout = proc.stdout

    def test_values_over_the_axes(self):
        with h5py.File(self.grid, "r") as f:
            self.assertEqual(f["lr"][:].tolist(), LRS)
            self.assertEqual(f["batch"][:].tolist(), BATCHES)
            self.assertEqual(f["model"].asstr()[:].tolist(), MODELS)
            acc, epochs, curve, status = (f[n][:] for n in ("val_accuracy", "epochs", "curve", "status"))
            self.assertEqual(f["epochs"].attrs["_FillValue"], INT64_MIN)
        self.assertEqual(acc.shape, (3, 2, 2))
        self.assertEqual(curve.shape, (3, 2, 2, 3))
        self.assertEqual(str(curve.dtype), "float32")
        for i, lr in enumerate(LRS):
            for j, batch in enumerate(BATCHES):
                for k, model in enumerate(MODELS):
                    if (i, j, k) == FAILED:
                        self.assertTrue(math.isnan(acc[i, j, k]))
                        self.assertEqual(epochs[i, j, k], INT64_MIN)
                        self.assertEqual(status[i, j, k], 2)
                        continue
                    self.assertEqual(acc[i, j, k], accuracy(lr, batch, model))
                    self.assertEqual(epochs[i, j, k], batch // 8)
                    self.assertEqual(curve[i, j, k].tolist(), [float(v) for v in
                                     (curve.dtype.type(lr), curve.dtype.type(2 * lr), curve.dtype.type(3 * lr))])
                    self.assertEqual(status[i, j, k], 1)
        self.assertIn("lr (3) x batch (2) x model (2)", self.stdout)

    def test_netcdf_dimension_scales(self):
        with h5py.File(self.grid, "r") as f:
            for axis in ("lr", "batch", "model"):
                self.assertEqual(f[axis].attrs["CLASS"], b"DIMENSION_SCALE")
                self.assertEqual(f[axis].attrs["NAME"], axis.encode())
            bare = f["curve_dim0"]
            self.assertTrue(bare.attrs["NAME"].startswith(b"This is a netCDF dimension but not a netCDF variable."))
            self.assertEqual(bare.shape, (3,))
            for name, dims in (("val_accuracy", ["lr", "batch", "model"]), ("status", ["lr", "batch", "model"]),
                               ("curve", ["lr", "batch", "model", "curve_dim0"])):
                got = [f[name].dims[d][0].name.lstrip("/") for d in range(f[name].ndim)]
                self.assertEqual(got, dims, name)
            ids = sorted(int(f[n].attrs["_Netcdf4Dimid"]) for n in ("lr", "batch", "model", "curve_dim0"))
            self.assertEqual(len(set(ids)), 4)

    def test_xarray_opens_it(self):
        if not os.path.exists(VENV_PYTHON):
            self.skipTest("no /opt/shardrun-pyenv (scripts/install-deps creates it): checked with h5py only")
        code = """
import json, sys, xarray as xr
ds = xr.open_dataset(sys.argv[1])
print(json.dumps({
    "dims": dict(ds.sizes), "coords": {c: ds[c].values.tolist() for c in ("lr", "batch", "model")},
    "acc_dims": list(ds.val_accuracy.dims), "curve_dims": list(ds.curve.dims),
    "acc": ds.val_accuracy.sel(lr=0.01, batch=64, model="mlp").item(),
    "epochs_failed": repr(ds.epochs.sel(lr=0.1, batch=64, model="cnn").item()),
    "acc_failed": repr(ds.val_accuracy.sel(lr=0.1, batch=64, model="cnn").item()),
    "best": ds.val_accuracy.where(ds.status == 1).max().item()}))
"""
        proc = subprocess.run([VENV_PYTHON, "-c", code, self.grid], capture_output=True, text=True)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        got = json.loads(proc.stdout)

        self.assertEqual(got["dims"], {"lr": 3, "batch": 2, "model": 2, "curve_dim0": 3})
        self.assertEqual(got["coords"], {"lr": LRS, "batch": BATCHES, "model": MODELS})
        self.assertEqual(got["acc_dims"], ["lr", "batch", "model"])
        self.assertEqual(got["curve_dims"], ["lr", "batch", "model", "curve_dim0"])
        self.assertEqual(got["acc"], accuracy(0.01, 64, "mlp"))
        self.assertEqual(got["epochs_failed"], "nan")
        self.assertEqual(got["acc_failed"], "nan")
        self.assertEqual(got["best"], accuracy(0.001, 16, "mlp"))

    def check_refused(self, name, sweep, extra="", needle=""):
        job = exec_job(self.work, name, sweep, extra)
        proc = run(["run", job, "-q"], np=2)
        self.assertIn(proc.returncode, (0, 1), proc.stderr)
        target = f"{self.work}/{name}.nc"

        proc = run(["export", f"{self.work}/{name}.h5", "--grid", target])

        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertEqual(proc.stdout, "")
        lines = proc.stderr.splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertIn("--grid needs a cartesian sweep", lines[0])
        self.assertIn(needle, lines[0])
        self.assertFalse(os.path.exists(target))
        self.assertFalse(os.path.exists(target + ".tmp"))

    def test_zip_points_and_data_jobs_are_refused(self):
        self.check_refused("zipped", "{zip: {lr: [0.001, 0.01], batch: [16, 64]}, model: [mlp]}", needle="zip:")
        self.check_refused("points", "{points: [{lr: 0.01, batch: 16, model: mlp}]}", needle="points:")
        self.check_refused("ranged", "{lr: [0.01], batch: [16], model: [mlp]}", "data: {items: 10, chunk: 5}",
                           needle="data job")

    def test_missing_master_and_option(self):
        proc = run(["export", f"{self.work}/none.h5", "--grid", f"{self.work}/none.nc"])
        self.assertEqual(proc.returncode, 2)
        self.assertIn("no results file at", proc.stderr)
        self.assertFalse(os.path.exists(f"{self.work}/none.nc"))
        proc = run(["export", f"{self.work}/grid.h5"])
        self.assertEqual(proc.returncode, 2)
        self.assertIn("--grid FILE.nc", proc.stderr)


if __name__ == "__main__":
    unittest.main()

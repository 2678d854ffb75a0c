"""An exec task's NaN, Infinity and null are stored values, not failures (issue 11, point 5):
floats hold NaN or +-inf, integers the fill value (the dataset's _FillValue, the minimum of
the type), and xarray shows the integer fill as NaN. h5py and xarray read them back."""
import os
import unittest

from xarray_check import check_results_file, ensure_xarray

ensure_xarray()

import h5py  # noqa: E402
import numpy as np  # noqa: E402
import xarray as xr  # noqa: E402

from harness import run, scratch_dir  # noqa: E402
from jobs import write_job  # noqa: E402

# Task 0 writes what Python's json.dumps writes for a diverged run (bare NaN / Infinity);
# task 1 quotes them and uses null; task 2 is an ordinary run.
WRITER = r'''
import json, os, sys
task = int(os.environ["SHARDRUN_TASK_ID"])
if task == 0:
    text = json.dumps({"loss": float("nan"), "peak": float("inf"), "curve": [1.5, float("-inf"), float("nan")],
                       "steps": None, "counts": [3, None]})
elif task == 1:
    text = '{"loss": null, "peak": "-Infinity", "curve": null, "steps": "NaN", "counts": null}'
else:
    text = json.dumps({"loss": 0.25, "peak": 2.0, "curve": [1, 2, 3], "steps": 40, "counts": [1, 2]})
open(os.environ["SHARDRUN_RESULT"], "w").write(text)
'''


class NonFiniteResults(unittest.TestCase):
    def test_nan_infinity_and_null_are_stored(self):
        work = scratch_dir()
        with open(os.path.join(work, "writer.py"), "w") as f:
            f.write(WRITER)
        job = write_job(work, f"""
            name: diverged
            task: exec
            sweep: {{i: {{range: [0, 3, 1]}}}}
            output: {{path: {work}/out.h5}}
            exec:
              argv: [python3, {work}/writer.py]
              results: {{loss: float64, peak: float32, curve: [float64, 3], steps: int64, counts: [int32, 2]}}
            """)

        proc = run(["run", job, "-q"], np=2)

        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        path = os.path.join(work, "out.h5")
        inf, fill64, fill32 = np.inf, np.iinfo(np.int64).min, np.iinfo(np.int32).min
        with h5py.File(path, "r") as f:
            self.assertEqual(f["tasks/status"][:].tolist(), [1, 1, 1])
            r = f["results"]
            np.testing.assert_array_equal(r["loss"][:], [np.nan, np.nan, 0.25])
            np.testing.assert_array_equal(r["peak"][:], np.array([inf, -inf, 2.0], dtype=np.float32))
            np.testing.assert_array_equal(r["curve"][:], [[1.5, -inf, np.nan], [np.nan] * 3, [1, 2, 3]])
            self.assertEqual(r["steps"][:].tolist(), [fill64, fill64, 40])
            self.assertEqual(r["counts"][:].tolist(), [[3, fill32], [fill32, fill32], [1, 2]])
            self.assertEqual(r["steps"].attrs["_FillValue"], fill64)
            self.assertEqual(r["counts"].attrs["_FillValue"], fill32)
            self.assertTrue(np.isnan(r["loss"].attrs["_FillValue"]))
        with xr.open_dataset(path, engine="h5netcdf", group="results") as ds:
            # CF masking: the integer fill becomes NaN (so the column turns float64).
            np.testing.assert_array_equal(ds["steps"].values, [np.nan, np.nan, 40.0])
            np.testing.assert_array_equal(ds["counts"].values, [[3.0, np.nan], [np.nan, np.nan], [1.0, 2.0]])
            np.testing.assert_array_equal(ds["peak"].values, np.array([inf, -inf, 2.0], dtype=np.float32))
        check_results_file(self, path, 3)


if __name__ == "__main__":
    unittest.main()

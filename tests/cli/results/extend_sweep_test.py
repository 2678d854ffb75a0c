"""Extending a finished sweep (issue 24, point 4): `--resume` with a job file whose sweep gained
values or points runs only the new tasks, appended as ids T..T'-1, and keeps every finished row
bit for bit; any other change is refused (exit 2, one line naming the key, its old and new
values) and writes nothing."""
import glob
import os
import subprocess
import unittest

from harness import run, scratch_dir, sha256_of, status_json
from jobs import h5py_module, write_job

# Each run of a task appends a line to a marker file named after its parameters.
JOB = r"""
name: extend
task: exec
params: {scale: 100}
sweep: SWEEP
exec:
  argv: [sh, -c, 'echo run >> OUT/mark-$SHARDRUN_PARAM_A-$SHARDRUN_PARAM_B; echo "{{\"v\": $((SHARDRUN_PARAM_A*SHARDRUN_PARAM_SCALE+SHARDRUN_PARAM_B))}}" > $SHARDRUN_RESULT']
  results: {v: float64}
output: {path: OUT/extend.h5}
"""


class ExtendSweepTest(unittest.TestCase):
    def start(self, sweep, np):
        self.work = scratch_dir()
        self.out = os.path.join(self.work, "extend.h5")
        self.write(sweep)
        proc = run(["run", self.job, "-q"], np=np)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return self.read()

    def write(self, sweep, scale=100):
        text = JOB.replace("SWEEP", sweep).replace("OUT", self.work).replace("scale: 100", f"scale: {scale}")
        self.job = write_job(self.work, text)

    def read(self):
        with h5py_module().File(self.out, "r") as f:
            names = ("results/v", "params/a", "params/b", "tasks/start", "tasks/attempts", "tasks/status")
            return {name: f[name][:].copy() for name in names}

    def marks(self):
        counts = {}
        for path in glob.glob(os.path.join(self.work, "mark-*")):
            with open(path) as f:
                counts[os.path.basename(path)[5:]] = len(f.read().split())
        return counts

    def check_extension(self, before, after, new_pairs):
        t = len(before["results/v"])
        for name, values in before.items():
            self.assertEqual(after[name][:t].tobytes(), values.tobytes(), name)  # old ids: bit for bit
        pairs = list(zip(after["params/a"][t:].tolist(), after["params/b"][t:].tolist()))
        self.assertEqual(pairs, new_pairs)
        self.assertEqual(after["results/v"][t:].tolist(), [a * 100.0 + b for a, b in new_pairs])
        self.assertEqual(list(after["tasks/attempts"][t:]), [1] * len(new_pairs))
        # Every task ran exactly once over both runs: the resume ran only the new ones.
        self.assertEqual(len(self.marks()), t + len(new_pairs))
        self.assertEqual(set(self.marks().values()), {1})
        code, status = status_json(self.out)
        self.assertEqual(code, 0, status)
        self.assertTrue(status["complete"], status)

    def extend_axis(self, np):
        before = self.start("{a: [1, 2, 3], b: [10, 20]}", np)
        self.write("{a: [1, 2, 3], b: [10, 20, 30]}")

        proc = run(["run", self.job, "-q", "--resume"], np=np)

        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.check_extension(before, self.read(), [(1, 30), (2, 30), (3, 30)])

    def test_axis_gains_a_value_at_1_rank(self):
        self.extend_axis(1)

    def test_axis_gains_a_value_at_2_ranks(self):
        self.extend_axis(2)

    def test_two_extensions_in_a_row(self):
        before = self.start("{a: [1, 2], b: [10]}", 2)
        self.write("{a: [1, 2], b: [10, 20]}")
        self.assertEqual(run(["run", self.job, "-q", "--resume"], np=2).returncode, 0)
        self.write("{a: [0, 1, 2], b: [10, 20]}")

        proc = run(["run", self.job, "-q", "--resume"], np=2)

        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.check_extension(before, self.read(), [(1, 20), (2, 20), (0, 10), (0, 20)])

    def test_points_gain_a_point(self):
        before = self.start("{points: [{a: 1, b: 2}, {a: 3, b: 4}]}", 2)
        self.write("{points: [{a: 1, b: 2}, {a: 5, b: 6}, {a: 3, b: 4}]}")

        proc = run(["run", self.job, "-q", "--resume"], np=2)

        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.check_extension(before, self.read(), [(5, 6)])

    def test_xarray_opens_the_extended_file(self):
        self.extend_axis(2)
        script = ("import sys, xarray as xr\n"
                  "ds = xr.open_dataset(sys.argv[1], engine='h5netcdf', group='results')\n"
                  "print(ds['v'].shape[0])\n")

        python = os.path.join(os.environ.get("SHARDRUN_PYENV", "/opt/shardrun-pyenv"), "bin", "python")
        if not os.access(python, os.X_OK):
            self.fail(f"{python} is missing: run scripts/install-deps (xarray, h5netcdf)")

        proc = subprocess.run([python, "-c", script, self.out], capture_output=True, text=True, timeout=120)

        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout.strip(), "9")

    def test_export_grid_refuses_an_extended_file(self):
        self.extend_axis(1)

        proc = run(["export", self.out, "--grid", os.path.join(self.work, "grid.nc")])

        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("is a sweep extended by --resume", proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.work, "grid.nc")))

    def refused(self, sweep, scale, expected):
        self.start("{a: [1, 2, 3], b: [10, 20]}", 2)
        listing = sorted(glob.glob(os.path.join(self.work, "**"), recursive=True))
        digest = sha256_of(self.out)
        self.write(sweep, scale)

        proc = run(["run", self.job, "-q", "--resume"], np=2)

        self.assertEqual(proc.returncode, 2, proc.stderr)
        lines = [line for line in proc.stderr.splitlines() if line.startswith("shardrun:")]
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertIn(expected, lines[0])
        self.assertEqual(sorted(glob.glob(os.path.join(self.work, "**"), recursive=True)), listing)
        self.assertEqual(sha256_of(self.out), digest)

    def test_removed_value_is_refused(self):
        self.refused("{a: [1, 3], b: [10, 20]}", 100, "sweep.a differs: old [1,2,3], new [1,3]")

    def test_changed_value_is_refused(self):
        self.refused("{a: [1, 2, 4], b: [10, 20]}", 100, "sweep.a differs: old [1,2,3], new [1,2,4]")

    def test_changed_fixed_param_is_refused(self):
        self.refused("{a: [1, 2, 3], b: [10, 20, 30]}", 7, "params.scale differs: old 100, new 7")


if __name__ == "__main__":
    unittest.main()

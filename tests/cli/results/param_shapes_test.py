"""Result dimensions sized by a parameter (issue 24, point 2): `loss: [float64, "{epochs}"]`
over a sweep of epochs [3, 5] is stored [T, 5], each task's row padded with NaN after its own
`epochs` values, with `loss_length` holding each task's length; a 2-D `[float32, "{epochs}", 2]`
likewise. Real mpiexec at PARAM_SHAPES_NP ranks (ctest runs 1, 2 and 4), both layouts, answers
through $SHARDRUN_RESULT (JSON), .npy files and worker answers; read back with h5py, xarray
and `shardrun table`; an array job's elements merge the same way. A task answering a length other than its own value fails with the reason
and stores nothing. An added sweep value above the stored length is refused on --resume."""
import math
import os
import sys
import unittest

from harness import SOURCE_DIR, run, scratch_dir
from jobs import h5py_module, write_job
import xarray_check

NP = int(os.environ.get("PARAM_SHAPES_NP", "2"))
PROGRAM = os.path.join(SOURCE_DIR, "tests", "cli", "param_shapes_program.py")
# Cartesian order, the last axis fastest: task t has epochs EPOCHS[t], seed SEEDS[t].
EPOCHS = [3, 3, 5, 5]
SEEDS = [1, 2, 1, 2]


def job_text(work, mode, layout, wrong_task=None, epochs="[3, 5]"):
    return f"""
name: curves
task: exec
sweep: {{epochs: {epochs}, seed: [1, 2]}}
exec:
  mode: {"worker" if mode == "worker" else "task"}
  argv: [{sys.executable}, {PROGRAM}, {mode}]
  env: {{PROGRAM_SOURCE: {SOURCE_DIR}, WRONG_TASK: '{"none" if wrong_task is None else wrong_task}'}}
  results:
    loss: [float64, "{{epochs}}"]
    traj: [float32, "{{epochs}}", 2]
output: {{path: {work}/curves.h5, layout: {layout}}}
"""


class ParamShapesTest(unittest.TestCase):
    def start(self, mode, layout, **kwargs):
        work = scratch_dir()
        job = write_job(work, job_text(work, mode, layout, **kwargs))
        return work, job, os.path.join(work, "curves.h5")

    def check_rows(self, out, failed=()):
        with h5py_module().File(out, "r") as f:
            loss, traj = f["results/loss"][:], f["results/traj"][:]
            lengths, traj_lengths = f["results/loss_length"][:], f["results/traj_length"][:]
            status = f["tasks/status"][:].tolist()
            self.assertEqual(f["results/loss"].attrs["length"], "loss_length")
            self.assertEqual(f["results/traj"].attrs["length"], "traj_length")
            self.assertEqual(f["params/epochs"][:].tolist(), EPOCHS)
        self.assertEqual(loss.shape, (len(EPOCHS), 5))
        self.assertEqual(traj.shape, (len(EPOCHS), 5, 2))
        for t, (n, seed) in enumerate(zip(EPOCHS, SEEDS)):
            if t in failed:
                self.assertEqual(status[t], 2, t)
                self.assertTrue(all(math.isnan(v) for v in loss[t]), (t, loss[t].tolist()))
                self.assertTrue(all(math.isnan(v) for v in traj[t].ravel()), (t, traj[t].tolist()))
                self.assertEqual(lengths[t], -2**63, "a failed task's length is the int64 fill value")
                continue
            self.assertEqual(status[t], 1, t)
            self.assertEqual(loss[t][:n].tolist(), [100.0 * seed + i + 0.5 for i in range(n)], t)
            self.assertTrue(all(math.isnan(v) for v in loss[t][n:]), (t, loss[t].tolist()))
            self.assertEqual(traj[t][:n].tolist(), [[i, -seed * i] for i in range(n)], t)
            self.assertTrue(all(math.isnan(v) for v in traj[t][n:].ravel()), (t, traj[t].tolist()))
            self.assertEqual((lengths[t], traj_lengths[t]), (n, n), t)

    def test_each_answer_path_and_layout_stores_padded_rows_and_their_lengths(self):
        for layout in ("shards", "single"):
            for mode in ("json", "npy", "worker"):
                with self.subTest(layout=layout, mode=mode):
                    work, job, out = self.start(mode, layout)
                    done = run(["run", job, "-q"], np=NP)
                    self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
                    self.check_rows(out)

    def test_an_array_job_merges_its_elements_padded(self):
        for layout in ("shards", "single"):
            with self.subTest(layout=layout):
                work, job, out = self.start("json", layout)
                for index in (0, 1):
                    done = run(["run", job, "-q", "--array-index", str(index), "--array-count", "2"], np=NP)
                    self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
                merged = run(["merge", out])
                self.assertEqual(merged.returncode, 0, merged.stdout + merged.stderr)
                self.check_rows(out)

    def test_xarray_and_table_read_the_padded_axis_and_the_lengths(self):
        for layout in ("shards", "single"):
            with self.subTest(layout=layout):
                work, job, out = self.start("json", layout)
                done = run(["run", job, "-q"], np=NP)
                self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
                with h5py_module().File(out, "r") as f:
                    xarray_check.check_h5py_layout(self, f, len(EPOCHS))
                    xarray_check.check_xarray_groups(self, out, f, len(EPOCHS))
                import xarray as xr
                with xr.open_dataset(out, engine="h5netcdf", group="results") as ds:
                    self.assertEqual(ds["loss"].dims, ("task", "loss_dim0"))
                    self.assertEqual(ds["loss"].shape, (4, 5))
                    self.assertEqual(ds["loss_length"].values.tolist(), EPOCHS)
                    # int64 as stored, not float64 (no _FillValue on a length column: issue 37, point 7).
                    self.assertEqual((str(ds["loss_length"].dtype), str(ds["traj_length"].dtype)), ("int64", "int64"))
                    # The README's recipe: one task's own values.
                    row = ds["loss"].sel(task=1)[: int(ds["loss_length"].sel(task=1))]
                    self.assertEqual(row.values.tolist(), [200.5, 201.5, 202.5])
                table = run(["table", out])
                self.assertEqual(table.returncode, 0, table.stdout + table.stderr)
                lines = table.stdout.splitlines()
                self.assertEqual(lines[0].split(), ["task", "epochs", "seed", "loss_length", "traj_length", "status"])
                self.assertEqual([line.split()[3] for line in lines[1:]], [str(n) for n in EPOCHS])

    def test_a_task_answering_another_length_fails_with_the_reason(self):
        for mode in ("json", "npy", "worker"):
            with self.subTest(mode=mode):
                work, job, out = self.start(mode, "shards", wrong_task=1)
                done = run(["run", job, "-q"], np=NP)
                self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
                self.check_rows(out, failed=(1,))
                with h5py_module().File(out, "r") as f:
                    message = f["tasks/message"].asstr()[1]
                # The first field found wrong is named (a worker's binary traj is decoded first).
                field = "traj" if mode == "worker" else "loss"
                self.assertIn(f"'{field}'", message)
                self.assertIn(f"{field}'s dimension {{epochs}} is 3 in this task", message)

    def test_resume_may_add_values_up_to_the_stored_length_only(self):
        work, job, out = self.start("json", "shards")
        done = run(["run", job, "-q"], np=NP)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        longer = write_job(work, job_text(work, "json", "shards", epochs="[3, 5, 8]"))
        refused = run(["run", longer, "-q", "--resume"], np=NP)
        self.assertEqual(refused.returncode, 2, refused.stdout + refused.stderr)
        self.assertIn("exec.results.loss is stored 5 long (the largest {epochs} of the first run), and the added sweep "
                      "values reach 8", refused.stderr)
        with h5py_module().File(out, "r") as f:
            self.assertEqual(f["results/loss"].shape, (4, 5), "a refused resume wrote nothing")
        shorter = write_job(work, job_text(work, "json", "shards", epochs="[3, 5, 4]"))
        grown = run(["run", shorter, "-q", "--resume"], np=NP)
        self.assertEqual(grown.returncode, 0, grown.stdout + grown.stderr)
        with h5py_module().File(out, "r") as f:
            self.assertEqual(f["results/loss"].shape, (6, 5))
            self.assertEqual(f["results/loss_length"][:].tolist(), EPOCHS + [4, 4])
            self.assertEqual(f["results/loss"][4][:4].tolist(), [100.5, 101.5, 102.5, 103.5])
            self.assertTrue(math.isnan(f["results/loss"][4][4]))


if __name__ == "__main__":
    xarray_check.ensure_xarray()
    unittest.main()

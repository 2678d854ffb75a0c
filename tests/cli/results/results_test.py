"""Results files written by `shardrun run` under mpiexec, read back with h5py: both layouts and
schedules at 4 ranks, kill -9 of a rank then --resume, array elements joined by merge."""
import json
import os
import signal
import subprocess
import time
import unittest

from harness import MPIEXEC, SHARDRUN, clean_env, run, scratch_dir, status_json
from jobs import h5py_module, write_job

h5py = h5py_module()


def sweep_job(work, output, layout="shards", schedule="static", sleep="0", extra=""):
    """An exec sweep whose result v = 10 * alpha + n and w = [task_id, n] can be checked from the params."""
    # pids.<rank> is replaced by a rename, so a reader never sees it empty (a `>` truncates first).
    script = (f"sleep {sleep}; echo $PPID > {work}/pids.{{rank}}.$$; mv -f {work}/pids.{{rank}}.$$ {work}/pids.{{rank}}; "
              f"touch {work}/marks.{{task_id}}; "
              "printf '{{\"v\": %s, \"w\": [%s, %s]}}' $(echo \"10 * {alpha} + {n}\" | bc) {task_id} {n}"
              " > $SHARDRUN_RESULT")
    return write_job(work, f"""
        name: results
        task: exec
        sweep:
          alpha: [0.5, 1.5, 2.5]
          n: {{range: [0, EXTENT, 1]}}
        schedule: {schedule}
        output: {{path: {output}, layout: {layout}}}
        {extra}
        exec:
          argv: {json.dumps(["sh", "-c", script])}
          results: {{v: float64, w: [int64, 2]}}
        """.replace("EXTENT", "20"), name=os.path.basename(output) + ".yaml")


def read(path):
    with h5py.File(path, "r") as f:
        return {
            "v": f["results/v"][:].tolist(),
            "w": f["results/w"][:].tolist(),
            "alpha": f["params/alpha"][:].tolist(),
            "n": f["params/n"][:].tolist(),
            "status": f["tasks/status"][:].tolist(),
            "complete": bool(f.attrs["complete"]),
        }


def expected_rows():
    alphas, ns = [0.5, 1.5, 2.5], range(20)
    rows = [(a, n) for a in alphas for n in ns]
    return [10 * a + n for a, n in rows], [[i, n] for i, (a, n) in enumerate(rows)]


class LayoutScheduleTest(unittest.TestCase):
    def check(self, layout, schedule):
        work = scratch_dir()
        job = sweep_job(work, f"{work}/r.h5", layout, schedule)
        proc = run(["run", job, "-q"], np=4)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        got = read(f"{work}/r.h5")
        v, w = expected_rows()
        self.assertEqual(got["v"], v)
        self.assertEqual(got["w"], w)
        self.assertEqual(got["alpha"], [a for a in [0.5, 1.5, 2.5] for _ in range(20)])
        self.assertEqual(got["n"], list(range(20)) * 3)
        self.assertEqual(got["status"], [1] * 60)
        self.assertTrue(got["complete"])

    def test_shards_static(self):
        self.check("shards", "static")

    def test_shards_dynamic(self):
        self.check("shards", "dynamic")

    def test_single_static(self):
        self.check("single", "static")

    def test_single_dynamic(self):
        self.check("single", "dynamic")


class KillAndResumeTest(unittest.TestCase):
    def reference(self):
        work = scratch_dir()
        proc = run(["run", sweep_job(work, f"{work}/ref.h5"), "-q"], np=2)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return read(f"{work}/ref.h5")

    def kill_rank_after(self, done, reference):
        work = scratch_dir()
        job = sweep_job(work, f"{work}/k.h5", sleep="0.1")
        cmd = [MPIEXEC, "--oversubscribe", "-np", "2", SHARDRUN, "run", job, "-q"]
        proc = subprocess.Popen(cmd, env=clean_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while time.time() < deadline and (len([p for p in os.listdir(work) if p.startswith("marks.")]) < done or
                                           not os.path.exists(f"{work}/pids.1")):
            time.sleep(0.02)
        with open(f"{work}/pids.1") as f:
            os.kill(int(f.read()), signal.SIGKILL)  # rank 1, the parent of its exec task
        proc.wait(timeout=60)
        self.assertNotEqual(proc.returncode, 0)
        self.assertFalse(os.path.exists(f"{work}/k.h5"), "a killed run must not leave a complete-looking output")
        resumed = run(["run", job, "--resume", "-q"], np=2)
        self.assertEqual(resumed.returncode, 0, resumed.stderr)
        got = read(f"{work}/k.h5")
        for key in ("v", "w", "alpha", "n", "status", "complete"):
            self.assertEqual(got[key], reference[key], f"{key} after a kill at {done} tasks")

    def test_kill_points(self):
        reference = self.reference()
        for done in (3, 17, 40):
            with self.subTest(done=done):
                self.kill_rank_after(done, reference)


class ArrayMergeTest(unittest.TestCase):
    def test_two_elements_merge_to_the_whole_job(self):
        work = scratch_dir()
        whole = run(["run", sweep_job(work, f"{work}/whole.h5"), "-q"], np=2)
        self.assertEqual(whole.returncode, 0, whole.stderr)
        job = sweep_job(work, f"{work}/parts.h5")
        first = run(["run", job, "-q", "--array-index", "0", "--array-count", "2"], np=2)
        self.assertEqual(first.returncode, 0, first.stderr)
        partial = run(["merge", f"{work}/parts.h5"])
        self.assertNotEqual(partial.returncode, 0)
        self.assertIn("1", partial.stdout + partial.stderr)
        second = run(["run", job, "-q", "--array-index", "1", "--array-count", "2"], np=2,
                     env={"SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "5"})
        self.assertEqual(second.returncode, 0, second.stderr)
        merged = run(["merge", f"{work}/parts.h5"])
        self.assertEqual(merged.returncode, 0, merged.stdout + merged.stderr)
        self.assertEqual(read(f"{work}/parts.h5"), read(f"{work}/whole.h5"))
        code, status = status_json(f"{work}/parts.h5")
        self.assertEqual(code, 0, status)
        self.assertEqual(status["ok"], 60)


class ArrayElementSummaryTest(unittest.TestCase):
    def test_element_summary_and_status_name_the_shards_and_the_merge(self):
        work = scratch_dir()
        output = f"{work}/e.h5"
        proc = run(["run", sweep_job(work, output), "--progress", "plain", "--array-index", "1", "--array-count", "3"],
                   np=2)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn("array element 1 of 3 finished", proc.stdout)
        self.assertIn(f"its results: {output}.shards/a1/", proc.stdout)
        self.assertIn(f"when all 3 elements have finished: shardrun merge {output}\n", proc.stdout)
        self.assertNotIn(f"results: {output}\n", proc.stdout, "the master file does not exist yet")
        status = run(["status", output])
        self.assertEqual(status.returncode, 3, status.stdout + status.stderr)  # two elements not run yet
        self.assertIn(f"array element 1 of 3 finished; its results: {output}.shards/a1/", status.stdout)
        self.assertIn(f"when all 3 have finished: shardrun merge {output}\n", status.stdout)
        report = status_json(output)[1]
        self.assertEqual(report["finished_elements"], [1])
        self.assertEqual(report["merge_command"], f"shardrun merge {output}")


if __name__ == "__main__":
    unittest.main(verbosity=2)

"""Every attempt recorded (issue 35, point 3): a task a drain cuts short keeps its attempt in
/attempts (marked interrupted, with its host and rank), and its rerun after --resume is attempt 2
everywhere: /attempts, /tasks/attempts, the task's folder (stdout.1, stdout.2) and
SHARDRUN_ATTEMPT. Both output layouts; the drain is a real SIGUSR1 to one rank under mpiexec."""
import json
import os
import signal
import socket
import unittest

from harness import run, run_and_signal_rank, scratch_dir
from jobs import h5py_module, write_job

# While WORK/slow exists (the first run), a task sleeps past the drain's 1 s; afterwards it answers
# at once with the attempt number it was given.
JOB = """
name: cut
task: exec
drain_timeout: 1s
sweep: {{a: [0, 1, 2, 3]}}
exec:
  argv: [sh, -c, 'echo "attempt $SHARDRUN_ATTEMPT"; if [ -e {work}/slow ]; then exec sleep 30; fi;
                  echo "{{{{\\"attempt\\": $SHARDRUN_ATTEMPT}}}}" > $SHARDRUN_RESULT']
  results: {{attempt: int32}}
output: {{path: {work}/cut.h5, layout: {layout}}}
"""


def texts(column):
    return [v.decode() if isinstance(v, bytes) else str(v) for v in column]


class AttemptsRecordTest(unittest.TestCase):
    def drain_then_resume(self, layout):
        work = scratch_dir()
        job = write_job(work, JOB.format(layout=layout, work=work))
        out = os.path.join(work, "cut.h5")
        open(os.path.join(work, "slow"), "w").close()
        # 2 s in, both ranks run their first task's first attempt; none can finish: exit 4.
        code, _, err = run_and_signal_rank(["run", job, "-q"], job, 1, signal.SIGUSR1, after=2)
        self.assertEqual(code, 4, err)
        os.remove(os.path.join(work, "slow"))

        resumed = run(["run", job, "-q", "--resume"], np=2)
        self.assertEqual(resumed.returncode, 0, resumed.stderr)

        h5py = h5py_module()
        with h5py.File(out, "r") as f:
            self.assertTrue(bool(f.attrs["complete"]))
            a = f["attempts"]
            rows = list(zip(a["task"][:].tolist(), a["attempt"][:].tolist(), a["interrupted"][:].tolist(),
                            texts(a["host"][:]), a["rank"][:].tolist(), a["start"][:].tolist(), a["end"][:].tolist()))
            tasks_attempts = f["tasks/attempts"][:].tolist()
            results = f["results/attempt"][:].tolist()
        cut = sorted({task for task, _, interrupted, *_ in rows if interrupted})
        self.assertTrue(cut, f"no attempt recorded as interrupted: {rows}")
        host = socket.gethostname()
        for task in range(4):
            mine = [r for r in rows if r[0] == task]
            if task not in cut:
                # A task no rank had started at the drain runs once, on the resume.
                self.assertEqual([(r[1], r[2]) for r in mine], [(1, 0)], mine)
                continue
            # Two rows: the interrupted attempt 1, then the resumed run's attempt 2, each with host and rank.
            self.assertEqual([(r[1], r[2]) for r in mine], [(1, 1), (2, 0)], mine)
            self.assertTrue(all(r[3] == host and r[4] in (0, 1) for r in mine), mine)
            self.assertLess(mine[0][6], mine[1][5], "attempt 2 began before attempt 1 ended")
            # The same number in /tasks, in what the program was told, and in the task's folder.
            self.assertEqual(tasks_attempts[task], 2)
            self.assertEqual(results[task], 2)
            folder = os.path.join(work, "cut.h5.tasks", str(task))
            kept = sorted(n for n in os.listdir(folder) if n.startswith("stdout."))
            self.assertEqual(kept, ["stdout.1", "stdout.2"], folder)
            for n in (1, 2):
                with open(os.path.join(folder, f"stdout.{n}")) as stdout:
                    self.assertEqual(stdout.read().splitlines()[0], f"attempt {n}")
        return out, cut

    def report_draws_the_interruptions(self, out, cut):
        # report: the cut attempts as interrupted bars (not failed), the pause as a requeue after a drain.
        stats_path = out + ".stats.json"
        drawn = run(["report", out, "--png", out + ".png", "--stats", stats_path])
        self.assertEqual(drawn.returncode, 0, drawn.stderr)
        with open(stats_path) as f:
            stats = json.load(f)
        self.assertEqual(stats["source"], "attempts")
        self.assertEqual(stats["interrupted_bars"], len(cut))
        self.assertEqual(stats["failed_bars"], 0)
        self.assertEqual(stats["bars"], 4 + len(cut))
        self.assertEqual(stats["breaks_after_interruption"], [True], stats)

    def test_shards_layout(self):
        self.report_draws_the_interruptions(*self.drain_then_resume("shards"))

    def test_single_layout(self):
        self.drain_then_resume("single")


if __name__ == "__main__":
    unittest.main()

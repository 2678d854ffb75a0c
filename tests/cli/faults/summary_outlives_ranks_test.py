"""A failing run's summary is printed even when rank 0 is the last rank to reach its end.

Open MPI's mpirun aborts the whole job at the first process that exits with a non-zero status
(orte_abort_on_non_zero_status) and kills the others. Every rank used to return the agreed exit
code, so a rank that got there first could kill rank 0 between MPI_Finalize and its summary: CI
on a loaded machine saw exit 4 and an empty stdout. Here rank 0's output reaches mpirun 2 s late
(a wrapper holds it, as a slow machine would); the summary and the exit code must both arrive."""
import os
import stat
import unittest

from harness import MPIEXEC, SHARDRUN, clean_env, scratch_dir
from jobs import write_job

import subprocess

JOB = """
name: late
task: exec
sweep: {a: {range: [0, 4, 1]}}
exec:
  argv: [sh, -c, 'test $SHARDRUN_PARAM_A -ne 2 || exit 7; echo "{{\\"v\\": $SHARDRUN_PARAM_A}}" > $SHARDRUN_RESULT']
  results: {v: float64}
output: {path: OUT/late.h5}
"""

# Rank 0 keeps its output until 2 s after it ended; the other ranks are shardrun itself.
WRAPPER = """#!/bin/sh
if [ "$OMPI_COMM_WORLD_RANK" != 0 ]; then exec "$@"; fi
"$@" > "$LATE_DIR/rank0.out"
rc=$?
sleep 2
cat "$LATE_DIR/rank0.out"
exit $rc
"""


class SummaryOutlivesRanksTest(unittest.TestCase):
    def test_rank_zero_late_still_prints_its_summary_and_exit_code(self):
        work = scratch_dir(self)
        job = write_job(work, JOB.replace("OUT", work))
        wrapper = os.path.join(work, "late.sh")
        with open(wrapper, "w") as f:
            f.write(WRAPPER)
        os.chmod(wrapper, os.stat(wrapper).st_mode | stat.S_IXUSR)
        proc = subprocess.run([MPIEXEC, "--oversubscribe", "-np", "2", wrapper, SHARDRUN, "run", job],
                              capture_output=True, text=True, env=clean_env({"LATE_DIR": work}), timeout=120)
        self.assertEqual(proc.returncode, 1, proc.stderr)  # a task failed: exit 1, rank 0's code
        self.assertIn("failed #2: exit 7", proc.stdout, proc.stderr)
        self.assertIn("3 ok, 1 failed", proc.stdout)


if __name__ == "__main__":
    unittest.main()

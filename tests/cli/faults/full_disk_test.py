"""A disk that fills up during a run (a 256 KiB tmpfs, mounted by the test; needs root): exit 1,
not 2 (it is not bad input), and one line with the system's reason and what to do, no HDF5
internals."""
import os
import subprocess
import unittest

from harness import run, scratch_dir
from jobs import write_job

# 200 tasks of 4 KiB of results each: the results alone are three times the disk (a run writes
# no file a task does not use, so the task folders do not fill it first).
JOB = r"""
task: exec
sweep: {a: {range: [0, 200, 1]}}
exec:
  argv: [sh, -c, 'printf "{{\"v\": [%s" $SHARDRUN_PARAM_A > $SHARDRUN_RESULT; for i in $(seq 511); do printf ", %s" $i; done >> $SHARDRUN_RESULT; echo "]}}" >> $SHARDRUN_RESULT']
  results: {v: [float64, 512]}
output: {path: DISK/out.h5}
"""


class FullDiskTest(unittest.TestCase):
    def test_full_disk_is_exit_1_with_one_clear_line(self):
        work = scratch_dir(self)
        disk = os.path.join(work, "disk")
        os.mkdir(disk)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", disk], check=True)
        try:
            job = write_job(work, JOB.replace("DISK", disk))
            proc = run(["run", job, "-q"])
        finally:
            subprocess.run(["umount", disk], check=True)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertIn("No space left on device; free disk space", lines[0])
        self.assertIn("rerun with --resume", lines[0])
        self.assertNotIn("H5F", lines[0])


if __name__ == "__main__":
    unittest.main()

"""{input} and {input_dataset} give an exec task data.input's file (absolute) and dataset
(issue 11, point 7). Worker mode's argv may use them too: they are the same for every task."""
import os
import unittest

from harness import run, scratch_dir
from jobs import h5py_module, write_job


class InputPlaceholdersTest(unittest.TestCase):
    def test_a_task_gets_the_input_file_and_dataset(self):
        work = scratch_dir()
        with h5py_module().File(os.path.join(work, "rows.h5"), "w") as f:
            f["group/rows"] = [[1.0, 2.0]] * 6
        job = write_job(work, f"""
name: inputs
task: exec
data: {{input: rows.h5:/group/rows, chunk: 3}}
exec:
  argv: [sh, -c, 'echo "{{input}}|{{input_dataset}}|{{start}}"']
output: {{path: {work}/inputs.h5}}
""")
        proc = run(["run", job, "-q"], cwd=work)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        for task, start in ((0, 0), (1, 3)):
            with open(os.path.join(work, "inputs.h5.tasks", str(task), "stdout")) as f:
                self.assertEqual(f.read().strip(), f"{work}/rows.h5|/group/rows|{start}")


if __name__ == "__main__":
    unittest.main()

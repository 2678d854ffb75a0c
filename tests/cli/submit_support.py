"""Shared by the `shardrun submit` option tests: a job in a scratch folder, submitted to a target,
and a refusal check (exit 2, one line, nothing written)."""
import json
import os

from harness import run, scratch_dir
from jobs import write_job

JOB = r'''
name: squares
task: exec
sweep:
  x: {range: [0, 12, 1]}
output: {path: out/squares.h5}
exec:
  argv: [sh, -c, 'printf "{{\"y\": %d}}" $(( {x} * {x} )) > "$SHARDRUN_RESULT"']
  results: {y: float64}
'''


# The cloud targets write a local output only for containers that mount it (--shared-fs).
CLOUD_TARGETS = ("aws-batch", "gcp-batch")


class Submitted:
    """What `shardrun submit JOB --to TARGET OPTIONS...` wrote (it must succeed). A cloud target with
    the job's local output gets `--shared-fs` of the scratch folder: the containers would mount it."""

    def __init__(self, test, target, *options, job_text=JOB):
        self.work = scratch_dir()
        if target in CLOUD_TARGETS and "://" not in job_text:
            options = ("--shared-fs", self.work, *options)
        self.output = os.path.join(self.work, "out", "squares.h5")
        self.job = write_job(self.work, job_text)
        self.proc = run(["submit", self.job, "--to", target, *options], cwd=self.work)
        test.assertEqual(self.proc.returncode, 0, self.proc.stdout + self.proc.stderr)
        self.dir = os.path.join(self.output + ".submit", target)

    def path(self, name):
        return os.path.join(self.dir, name)

    def text(self, name):
        with open(self.path(name)) as f:
            return f.read()

    def json(self, name):
        return json.loads(self.text(name))


def expect_refused(test, *args, needle):
    """`shardrun submit JOB ARGS...` exits 2 with one line holding `needle`, and writes nothing."""
    work = scratch_dir()
    job = write_job(work, JOB)
    proc = run(["submit", job, *args], cwd=work)
    test.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    test.assertEqual(len(lines), 1, proc.stderr)
    test.assertIn(needle, lines[0])
    test.assertEqual(proc.stdout, "")
    test.assertFalse(os.path.exists(os.path.join(work, "out")), "nothing may be written")
    return lines[0]


def aws_resources(container):
    return {r["type"]: r["value"] for r in container["resourceRequirements"]}

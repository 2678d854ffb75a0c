"""Issue 34, point 5: an input in object storage is never pulled whole by `plan` or `submit`. A 50 MB
HDF5 file in moto's S3 (or the GCS emulator) is data.input; `plan`, `submit --dry-run` and a real
`submit --workdir .` (job files and workdir uploaded) learn its shape from a few ranged reads of its
metadata: less than 1 MB comes out of rclone (counted by a wrapper around it, SHARDRUN_RCLONE, that
logs each call and the bytes it wrote to stdout), no call copies the object, the store's own log
shows only ranged GETs (206) of it, and nothing is left in $TMPDIR. plan prints what a plan of a
local copy prints; a dataset whose header lies at the end of its file costs one more ranged read.
A missing object or one that is not HDF5 is exit 2 at data.input, for `run` too. A real run still
downloads the file once per node and gives every task its rows. CLOUD_BACKEND=s3|gcs picks one
(ctest runs each as its own entry); unset runs both."""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import cloud_servers  # noqa: E402
from harness import run, scratch_dir  # noqa: E402
from jobs import h5py_module, write_job  # noqa: E402

ROWS = 204800  # float32 [ROWS, 64]: 50 MiB
CHUNK = 40000
LIMIT = 1 << 20  # what plan or submit may read of it
JOB = """\
name: big
task: exec
data: {{input: "{input}", chunk: {chunk}}}
output: {{path: "{output}"}}
exec:
  argv: [sh, -c, 'echo "{{{{\\"n\\": $(({{end}} - {{start}}))}}}}" > $SHARDRUN_RESULT']
  results: {{n: int64}}
"""
# Runs the real rclone; logs its arguments (one call a line) and how many bytes it wrote to stdout.
WRAPPER = """\
#!/bin/bash
printf '%s\\n' "$*" >> {calls}
exec 3>&1
/usr/bin/rclone "$@" | tee /dev/fd/3 | wc -c >> {bytes}
exit ${{PIPESTATUS[0]}}
"""
DOWNLOADS = ("copy ", "copyto ", "sync ", "move ", "moveto ", "bisync ", "mount ", "serve ")


class CloudInputBase:
    backend = None

    @classmethod
    def setUpClass(cls):
        cls.work = scratch_dir()
        cls.store = (cloud_servers.S3 if cls.backend == "s3" else cloud_servers.GCS)(cls.work)
        cls.addClassCleanup(cls.store.stop)
        h5py = h5py_module()
        import numpy
        cls.local = os.path.join(cls.work, "big.h5")
        with h5py.File(cls.local, "w") as f:
            f["x"] = numpy.arange(ROWS * 64, dtype=numpy.float32).reshape(ROWS, 64)
        cls.store.put(cls.local, "in/big.h5")
        # A dataset added to a file of 4 MB: its header lies at the end, fetched by a ranged read of its own.
        cls.later = os.path.join(cls.work, "later.h5")
        with h5py.File(cls.later, "w") as f:
            f["first"] = numpy.zeros((1 << 20,), dtype=numpy.float32)
        with h5py.File(cls.later, "a") as f:
            f["y"] = numpy.zeros((1000, 8), dtype=numpy.float64)
        cls.store.put(cls.later, "in/later.h5")
        with open(os.path.join(cls.work, "not.h5"), "w") as f:
            f.write("not an HDF5 file\n" * 1000)
        cls.store.put(os.path.join(cls.work, "not.h5"), "in/not.h5")

    def setUp(self):
        self.tmp = scratch_dir(self)  # the $TMPDIR of plan and submit: empty before and after
        self.calls = os.path.join(scratch_dir(self), "calls")
        self.bytes = os.path.join(scratch_dir(self), "bytes")
        self.wrapper = os.path.join(scratch_dir(self), "rclone")
        with open(self.wrapper, "w") as f:
            f.write(WRAPPER.format(calls=self.calls, bytes=self.bytes))
        os.chmod(self.wrapper, 0o755)
        self.project = scratch_dir(self)
        self.log_start = self.store_log_size()

    def env(self, **extra):
        return {**self.store.env(), "TMPDIR": self.tmp, "SHARDRUN_RCLONE": self.wrapper, **extra}

    def job(self, input_key="in/big.h5", dataset="/x"):
        return write_job(self.project, JOB.format(input=self.store.url(input_key) + ":" + dataset, chunk=CHUNK,
                                                  output=self.store.url("runs/big.h5")))

    def rclone_calls(self):
        if not os.path.exists(self.calls):
            return []
        with open(self.calls) as f:
            return f.read().splitlines()

    def rclone_bytes(self):
        if not os.path.exists(self.bytes):
            return 0
        with open(self.bytes) as f:
            return sum(int(line) for line in f if line.strip())

    def store_log(self):
        with open(self.store.server.log.name, errors="replace") as f:
            f.seek(self.log_start)
            return f.read()

    def store_log_size(self):
        self.store.server.log.flush()
        return os.path.getsize(self.store.server.log.name)

    def object_gets(self, key):
        """The store's log lines of GETs of the object's bytes since the test began."""
        if self.backend == "s3":
            wanted = (f"GET /{self.store.bucket}/{key} ",)
        else:  # the media download, not the JSON metadata GET
            wanted = (f"/o/{key}?", "alt=media")
        return [line for line in self.store_log().splitlines() if all(part in line for part in wanted)]

    def check_metadata_only(self, what, key="in/big.h5", size=None):
        calls = self.rclone_calls()
        self.assertTrue(calls, f"{what} made no rclone call at all: the wrapper was not used")
        copies = [call for call in calls if call.startswith(DOWNLOADS) and key in call]
        self.assertEqual(copies, [], f"{what} downloaded the object")
        read = self.rclone_bytes()
        self.assertLess(read, LIMIT, f"{what} read {read} bytes of a {size or os.path.getsize(self.local)}-byte input")
        gets = self.object_gets(key)
        self.assertTrue(gets, f"{what}: no GET of the object in the store's log")
        self.assertEqual([line for line in gets if '" 206 ' not in line], [], f"{what}: only ranged GETs")
        left = [os.path.join(root, name) for root, dirs, files in os.walk(self.tmp) for name in dirs + files]
        self.assertEqual(left, [], f"{what} left files in $TMPDIR")
        print(f"{self.backend} {what}: {len(calls)} rclone calls, {read} bytes read", file=sys.stderr)

    def local_plan(self):
        job = write_job(self.project, JOB.format(input=self.local + ":/x", chunk=CHUNK, output="out.h5"), "local.yaml")
        proc = run(["plan", job, "--ranks", "2", "--json"], cwd=self.project)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        return json.loads(proc.stdout)

    def test_plan_reads_only_metadata(self):
        proc = run(["plan", self.job(), "--ranks", "2", "--json"], env=self.env(), cwd=self.project)

        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        plan = json.loads(proc.stdout)
        local = self.local_plan()
        self.assertEqual((plan["items"], plan["tasks"]), (ROWS, (ROWS + CHUNK - 1) // CHUNK))
        self.assertEqual(plan["groups"], local["groups"], "the same split as a plan of a local copy")
        self.check_metadata_only("plan")

    def test_a_header_past_the_first_page_is_read_by_its_own_range(self):
        proc = run(["plan", self.job("in/later.h5", "/y"), "--json"], env=self.env(), cwd=self.project)

        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertEqual(json.loads(proc.stdout)["items"], 1000)
        cats = [call for call in self.rclone_calls() if call.startswith("cat ")]
        self.assertEqual(len(cats), 2, "the first page, then the one holding /y's header:\n" + "\n".join(cats))
        self.check_metadata_only("plan", "in/later.h5", os.path.getsize(self.later))

    def test_submit_dry_run_reads_only_metadata(self):
        proc = run(["submit", self.job(), "--to", "aws-batch" if self.backend == "s3" else "gcp-batch", "--array", "2",
                    "--dry-run"], env=self.env(), cwd=self.project)

        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.check_metadata_only("submit --dry-run")

    def test_submit_with_its_workdir_reads_only_metadata(self):
        """Not a dry run: the job files and the workdir go up to the bucket; the input still is not read."""
        proc = run(["submit", self.job(), "--to", "aws-batch" if self.backend == "s3" else "gcp-batch", "--array", "2",
                    "--workdir", "."], env=self.env(), cwd=self.project)

        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertTrue(self.store.keys("runs/big.h5.submit/workdir/"), "the workdir was uploaded")
        self.check_metadata_only("submit --workdir .")

    def plan_refused(self, key):
        """plan of a job whose input is `key`: exit 2 with one line, nothing left in $TMPDIR."""
        proc = run(["plan", self.job(key)], env=self.env(), cwd=self.project)
        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        lines = proc.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, proc.stderr)
        self.assertEqual(os.listdir(self.tmp), [])
        return lines[0]

    def test_missing_object_is_bad_input(self):
        line = self.plan_refused("in/absent.h5")

        self.assertRegex(line, r"job\.yaml:3:\d+: data\.input: there is no object .*in/absent\.h5")

    def test_object_that_is_not_hdf5_is_bad_input(self):
        line = self.plan_refused("in/not.h5")

        self.assertRegex(line, r"job\.yaml:3:\d+: data\.input: .*not\.h5.* HDF5")
        self.assertLess(self.rclone_bytes(), LIMIT)

    def test_run_of_a_missing_object_is_bad_input(self):
        proc = run(["run", self.job("in/absent.h5"), "-q"], env=self.env(SHARDRUN_SCRATCH=scratch_dir(self)),
                   cwd=self.project)

        self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
        self.assertIn("data.input: there is no object " + self.store.url("in/absent.h5"), proc.stderr)
        self.assertEqual(self.store.keys("runs/"), [], "nothing written")

    def test_run_stages_once_per_node(self):
        scratch = scratch_dir(self)
        proc = run(["run", self.job(), "-q"], np=2, env=self.env(SHARDRUN_SCRATCH=scratch), cwd=self.project)

        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        downloads = [call for call in self.rclone_calls() if call.startswith("copyto ") and "in/big.h5" in call]
        self.assertEqual(len(downloads), 1, "two ranks of one node: one download\n" + "\n".join(self.rclone_calls()))
        staged = [os.path.join(root, name) for root, _, files in os.walk(os.path.join(scratch, "shardrun-input"))
                  for name in files if name == "big.h5"]
        self.assertEqual([os.path.getsize(path) for path in staged], [os.path.getsize(self.local)])
        master = os.path.join(self.project, "master.h5")
        self.store.get("runs/big.h5", master)
        with h5py_module().File(master, "r") as f:
            tasks = (ROWS + CHUNK - 1) // CHUNK
            self.assertEqual(f["tasks/status"][:].tolist(), [1] * tasks)
            self.assertEqual(f["results/n"][:].tolist(), [min(CHUNK, ROWS - i * CHUNK) for i in range(tasks)])


class S3InputTest(CloudInputBase, unittest.TestCase):
    backend = "s3"


class GcsInputTest(CloudInputBase, unittest.TestCase):
    backend = "gcs"


if __name__ == "__main__":
    cloud_servers.skip_unless_available()
    backend = os.environ.get("CLOUD_BACKEND")
    if backend == "s3":
        del GcsInputTest
    elif backend == "gcs":
        del S3InputTest
    unittest.main()

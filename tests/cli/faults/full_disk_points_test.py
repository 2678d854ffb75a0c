"""A disk that fills up at each write of an output (issue 23, point 9; needs root for tmpfs).

At every write point (element manifest at start and at the end, params.h5 at start, a segment commit,
the master, `shardrun merge`, layout single) a full disk must end the run with exit code 1
(never a signal: HDF5 1.10.8 used to crash in MPI_Finalize after a failed close), exactly one
`shardrun:` line naming the file and the system's reason, no *.tmp left behind, and, once there
is room again, `--resume` (or the merge again) must give the results of a run that never failed.
"""
import glob
import os
import shutil
import subprocess
import unittest

from harness import run, scratch_dir
from jobs import h5py_module, write_job

# 48 tasks of a 128 x 128 float32 field: 3 MiB of results, so the segments alone need about
# 3 MiB and the master as much again. The sweep is what params.h5 holds.
JOB = """\
name: full-disk
task: heat2d
params: {nx: 128, ny: 128, steps: 1, stride: 1}
sweep:
  alpha: {linspace: [0.05, 0.2, 48]}
output: {path: @OUT@, layout: @LAYOUT@}
"""
RESULTS_MIB = 3
ROOM = "64m"


def mount_tmpfs(test, folder, size):
    os.makedirs(folder, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", folder], check=True)
    # Registered at once: the disk goes even when the test fails half-way.
    test.addCleanup(lambda: subprocess.run(["umount", folder], check=False) if os.path.ismount(folder) else None)


def free_bytes(folder):
    stat = os.statvfs(folder)
    return stat.f_bavail * stat.f_frsize


def used_bytes(folder):
    stat = os.statvfs(folder)
    return (stat.f_blocks - stat.f_bfree) * stat.f_frsize


def fill_leaving(folder, room):
    """Writes a filler file so that exactly `room` bytes (whole pages) stay free."""
    size = free_bytes(folder) - room
    assert size >= 0, (free_bytes(folder), room)
    with open(os.path.join(folder, "filler"), "wb") as f:
        f.write(b"\0" * size)
    assert free_bytes(folder) == room, (free_bytes(folder), room)


def make_room(folder):
    subprocess.run(["mount", "-o", f"remount,size={ROOM}", folder], check=True)


def results_of(path):
    h5py = h5py_module()
    with h5py.File(path, "r") as f:
        return f["results/field"][()], list(f["tasks/status"][()]), bool(f.attrs["complete"])


class FullDiskPointsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        work = scratch_dir()
        job = write_job(work, JOB.replace("@OUT@", os.path.join(work, "out.h5")).replace("@LAYOUT@", "shards"))
        proc = run(["run", job, "-q"])
        assert proc.returncode == 0, proc.stderr
        cls.reference, _, _ = results_of(os.path.join(work, "out.h5"))

    def setUp(self):
        self.work = scratch_dir()
        self.disk = os.path.join(self.work, "disk")

    def job(self, layout="shards", name="job.yaml"):
        text = JOB.replace("@OUT@", os.path.join(self.disk, "out.h5")).replace("@LAYOUT@", layout)
        return write_job(self.work, text, name)

    def run_job(self, job, np, *extra):
        return run(["run", job, "-q", *extra], np=np if np > 1 else None)

    def assert_failed_cleanly(self, proc, names):
        """Exit 1, one `shardrun:` line naming a file that contains `names` and the reason, no temp file."""
        self.assertEqual(proc.returncode, 1, proc.stderr)
        ours = [line for line in proc.stderr.splitlines() if "shardrun:" in line]
        self.assertEqual(len(ours), 1, proc.stderr)
        self.assertIn(names, ours[0])
        self.assertIn("No space left on device", ours[0])
        self.assertNotIn("H5", ours[0])  # HDF5's call chain is not what a user acts on
        self.assertNotIn("Segmentation", proc.stderr)
        self.assertEqual(glob.glob(os.path.join(self.disk, "**", "*.tmp"), recursive=True), [])

    def assert_reference(self, path):
        values, statuses, complete = results_of(path)
        self.assertTrue(complete)
        self.assertEqual(statuses, [statuses[0]] * len(self.reference))
        self.assertTrue((values == self.reference).all())

    def resume_after_room(self, job, np):
        make_room(self.disk)
        proc = self.run_job(job, np, "--resume")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assert_reference(os.path.join(self.disk, "out.h5"))

    def test_manifest_at_start(self):
        for np in (1, 2):
            with self.subTest(np=np):
                mount_tmpfs(self, self.disk, "1m")
                fill_leaving(self.disk, 0)
                job = self.job()

                proc = self.run_job(job, np)

                self.assert_failed_cleanly(proc, "element.json")
                make_room(self.disk)
                os.remove(os.path.join(self.disk, "filler"))
                self.assertIn("rerun with --resume", proc.stderr)
                proc = self.run_job(job, np, "--resume")
                self.assertEqual(proc.returncode, 0, proc.stderr)
                self.assert_reference(os.path.join(self.disk, "out.h5"))
                subprocess.run(["umount", self.disk], check=True)

    def test_segment_commit(self):
        for np in (1, 2, 4):
            with self.subTest(np=np):
                mount_tmpfs(self, self.disk, "1m")
                job = self.job()

                proc = self.run_job(job, np)

                self.assert_failed_cleanly(proc, ".shards/a0/r")
                self.resume_after_room(job, np)
                subprocess.run(["umount", self.disk], check=True)

    def test_master(self):
        # The segments fit, the master (as large again) does not: issue 23's SIGSEGV at exit.
        for np in (1, 2, 4):
            with self.subTest(np=np):
                mount_tmpfs(self, self.disk, f"{RESULTS_MIB * 3 // 2}m")
                job = self.job()

                proc = self.run_job(job, np)

                self.assert_failed_cleanly(proc, "master file")
                self.assertIn("rerun with --resume", proc.stderr)
                self.assertFalse(os.path.exists(os.path.join(self.disk, "out.h5")))
                self.resume_after_room(job, np)
                subprocess.run(["umount", self.disk], check=True)

    def element_sizes(self, np):
        """Bytes an array element's manifest + segments take, its params.h5, and what is written
        before params.h5 (its manifest, and the lock file's line naming its holder), on a roomy tmpfs."""
        mount_tmpfs(self, self.disk, ROOM)
        proc = self.run_job(self.job(), np, "--array-index", "0", "--array-count", "2")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        params = os.stat(glob.glob(os.path.join(self.disk, "*.shards", "a0", "params.h5"))[0]).st_blocks * 512
        manifest = os.stat(glob.glob(os.path.join(self.disk, "*.shards", "a0", "element.json"))[0]).st_blocks * 512
        lock = os.stat(glob.glob(os.path.join(self.disk, "*.shards", "a0.lock"))[0]).st_blocks * 512
        total = used_bytes(self.disk)
        subprocess.run(["umount", self.disk], check=True)
        return total - params, params, manifest + lock

    def test_params_at_start_and_manifest_at_end(self):
        # An array element starts with its manifest, then params.h5 (for readers of the running
        # job), and ends with its manifest again: room for everything before one of them, and
        # not one page more.
        for np in (1, 2):
            before_params, params, manifest = self.element_sizes(np)
            for point, room, names in (("params", manifest, "params.h5"),
                                       ("manifest", before_params + params, "element.json")):
                with self.subTest(np=np, point=point):
                    mount_tmpfs(self, self.disk, ROOM)
                    fill_leaving(self.disk, room)
                    job = self.job()
                    element = ["--array-index", "0", "--array-count", "2"]

                    proc = self.run_job(job, np, *element)

                    self.assert_failed_cleanly(proc, names)
                    os.remove(os.path.join(self.disk, "filler"))
                    proc = self.run_job(job, np, "--resume", *element)
                    self.assertEqual(proc.returncode, 0, proc.stderr)
                    proc = self.run_job(job, np, "--resume", "--array-index", "1", "--array-count", "2")
                    self.assertEqual(proc.returncode, 0, proc.stderr)
                    proc = run(["merge", os.path.join(self.disk, "out.h5")])
                    self.assertEqual(proc.returncode, 0, proc.stderr)
                    self.assert_reference(os.path.join(self.disk, "out.h5"))
                    subprocess.run(["umount", self.disk], check=True)

    def test_merge(self):
        # Both elements done on a roomy disk, then merged on a copy with room for half a master.
        roomy = os.path.join(self.work, "roomy")
        mount_tmpfs(self, roomy, ROOM)
        job = write_job(self.work, JOB.replace("@OUT@", os.path.join(roomy, "out.h5")).replace("@LAYOUT@", "shards"))
        for index in ("0", "1"):
            proc = self.run_job(job, 2, "--array-index", index, "--array-count", "2")
            self.assertEqual(proc.returncode, 0, proc.stderr)
        mount_tmpfs(self, self.disk, ROOM)
        shutil.copytree(roomy, self.disk, dirs_exist_ok=True, symlinks=True)
        fill_leaving(self.disk, RESULTS_MIB * 1024 * 1024 // 2)

        proc = run(["merge", os.path.join(self.disk, "out.h5")])

        self.assert_failed_cleanly(proc, "master file")
        self.assertIn("rerun shardrun merge", proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.disk, "out.h5")))
        os.remove(os.path.join(self.disk, "filler"))
        proc = run(["merge", os.path.join(self.disk, "out.h5")])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assert_reference(os.path.join(self.disk, "out.h5"))

    def test_layout_single(self):
        # The ranks' collective commit into the element's one parallel file: a share that fails
        # on one rank fails it on all (before, the others hung in the next collective write).
        for np in (1, 2):
            with self.subTest(np=np):
                mount_tmpfs(self, self.disk, "1m")
                job = self.job("single")

                proc = self.run_job(job, np)

                self.assert_failed_cleanly(proc, "single.h5")
                self.resume_after_room(job, np)
                subprocess.run(["umount", self.disk], check=True)

if __name__ == "__main__":
    unittest.main()

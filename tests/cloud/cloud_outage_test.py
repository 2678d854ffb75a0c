"""Issue 34, points 3, 8 and 9, against moto's S3 server on loopback:
- an outage from mid-run to the end (moto SIGSTOPped: it accepts connections and never answers, the
  worst case): the ranks say on stderr that the bucket is unreachable while the run goes on, the run
  exits 3 (retryable) naming the committed tasks that are not in the bucket, and the retry (the
  endpoint back, a fresh machine) completes the run with every task once;
- a wrong key and missing credentials: the line naming the cause (InvalidAccessKeyId,
  NoCredentialProviders) is quoted, not rclone's last line;
- a second run of the same array element while the first is alive is refused with exit 2 naming the
  first (host, start), and the first completes; a run whose claim another run took (it was frozen)
  uploads nothing more and exits 2."""
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import unittest
import urllib.parse
import urllib.request
from xml.etree import ElementTree

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import cloud_servers  # noqa: E402
from harness import MPIEXEC, SHARDRUN, clean_env, scratch_dir  # noqa: E402
from jobs import h5py_module, write_job  # noqa: E402

TASKS = 24
OPEN = 4  # tasks 0..3 are quick; the others take {pause} seconds each until the gate file exists
JOB = """\
name: outage
task: exec
sweep: {{a: {{range: [0, {tasks}, 1]}}}}
retries: 0
exec:
  argv: [sh, -c, 'if [ $SHARDRUN_PARAM_A -ge {open} ] && [ ! -e {gate} ]; then sleep {pause}; fi;
         echo $SHARDRUN_PARAM_A >> {ran}; echo "{{{{\\"v\\": $SHARDRUN_PARAM_A}}}}" > $SHARDRUN_RESULT']
  results: {{v: float64}}
"""
SEGMENT = re.compile(r"\.shards/a\d+/r\d+/\d+\.h5$")


def task_ids(text):
    """"3, 5-7" -> [3, 5, 6, 7]."""
    ids = []
    for part in text.split(","):
        first, _, last = part.strip().partition("-")
        ids += list(range(int(first), int(last or first) + 1))
    return ids


class Run:
    """shardrun run under mpiexec in its own session; stderr read line by line as it comes."""

    def __init__(self, test, args, env, np=2):
        self.scratch = env["SHARDRUN_SCRATCH"]
        self.proc = subprocess.Popen([MPIEXEC, "--oversubscribe", "-np", str(np), SHARDRUN, "run", *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                     start_new_session=True)
        test.addCleanup(self.kill)
        self.err_lines = []  # (time seen, line)
        self.out = ""
        self._err = threading.Thread(target=self._read_err, daemon=True)
        self._out = threading.Thread(target=self._read_out, daemon=True)
        self._err.start()
        self._out.start()

    def _read_err(self):
        for line in self.proc.stderr:
            self.err_lines.append((time.time(), line))

    def _read_out(self):
        self.out = self.proc.stdout.read()

    @property
    def err(self):
        return "".join(line for _, line in self.err_lines)

    def wait(self, timeout=300):
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"the run did not end within {timeout} s: {self.err}")
        self._err.join(30)
        self._out.join(30)
        return self.proc.returncode

    def kill(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self._err.join(30)
        self._out.join(30)
        self.proc.stdout.close()
        self.proc.stderr.close()
        cloud_servers.kill_processes_with_env(f"SHARDRUN_SCRATCH={self.scratch}")


class OutageTest(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir(self)
        self.store = cloud_servers.S3(self.work)
        self.addCleanup(self.store.stop)
        self.gate = os.path.join(self.work, "gate")
        self.ran = os.path.join(self.work, "ran.txt")  # a line per task run, by every run
        self.job = write_job(self.work, JOB.format(tasks=TASKS, open=OPEN, gate=self.gate, pause=self.pause(),
                                                   ran=self.ran))
        self.prefix = "runs/outage.h5"
        self.url = self.store.url(self.prefix)

    def pause(self):
        """Seconds a slow task takes: the second writer's test needs the first alive while it is refused."""
        return 5 if any(word in self.id() for word in ("second_writer", "claim_another", "finishes_while")) else 1

    def env(self, **extra):
        env = clean_env({**self.store.env(), "SHARDRUN_SCRATCH": scratch_dir(self), "SHARDRUN_UPLOAD_INTERVAL": "0.3"})
        env.pop("AWS_CA_BUNDLE", None)
        env.update(extra)
        return env

    def start(self, env, *extra, np=2):
        return Run(self, [self.job, "--set", f"output.path={self.url}", *extra], env, np)

    def segments(self):
        """The segment objects, listed by one plain HTTP request (moto checks no signature; awscli takes seconds)."""
        query = urllib.parse.urlencode({"list-type": "2", "prefix": self.prefix})
        with urllib.request.urlopen(f"{self.store.server.url}/{self.store.bucket}?{query}", timeout=60) as response:
            keys = [element.text for element in ElementTree.parse(response).iter() if element.tag.endswith("}Key")]
        return [key for key in keys if SEGMENT.search(key)]

    def wait_for_a_segment(self, run):
        deadline = time.time() + 240
        while not self.segments():
            self.assertIsNone(run.proc.poll(), f"the run ended before a commit reached the bucket: {run.err}")
            self.assertLess(time.time(), deadline, "no commit in the bucket after 240 s")
            time.sleep(0.3)

    def rows_in_bucket(self):
        """task id -> start of every row of the segments in the bucket."""
        h5py = h5py_module()
        rows = {}
        for key in self.segments():
            path = os.path.join(self.work, "segment.h5")
            self.store.get(key, path)
            with h5py.File(path, "r") as f:
                rows.update((int(row["task_id"]), float(row["start"])) for row in f["tasks"][:])
        return rows

    def check_master(self):
        h5py = h5py_module()
        path = os.path.join(self.work, "master.h5")
        self.store.get(self.prefix, path)
        with h5py.File(path, "r") as f:
            self.assertTrue(bool(f.attrs["complete"]))
            self.assertEqual(f["tasks/status"][:].tolist(), [1] * TASKS, "every task ok exactly once")
            self.assertEqual(f["results/v"][:].tolist(), [float(i) for i in range(TASKS)])
            return f["tasks/start"][:].tolist()

    def test_outage_until_the_end_exits_3_and_the_retry_completes(self):
        run = self.start(self.env(SHARDRUN_UPLOAD_PATIENCE="10"))
        self.wait_for_a_segment(run)
        # The endpoint stops answering (connections still accepted: no quick "connection refused").
        server = self.store.server.proc.pid
        os.killpg(server, signal.SIGSTOP)
        self.addCleanup(os.killpg, server, signal.SIGCONT)
        stopped = time.time()
        # The slow tasks go on, finish and commit while the bucket is away.
        self.assertEqual(run.wait(), 3, run.out + run.err)
        said = [seen for seen, line in run.err_lines if "the bucket is unreachable since" in line]
        self.assertTrue(said, run.err)
        self.assertIn("retrying", run.err)
        # A generous bound on the whole wait (the ask is ~10 s; this only catches a silent hang).
        self.assertLess(said[0] - stopped, 60, run.err)
        print(f"the outage was said {said[0] - stopped:.1f} s after the endpoint froze", flush=True)
        found = re.search(r"(\d+) committed task\(s\) not confirmed in the bucket: ([\d, -]+)", run.out)
        self.assertIsNotNone(found, run.out + run.err)
        missing = task_ids(found.group(2))
        self.assertEqual(int(found.group(1)), len(missing))
        self.assertTrue(missing, "the outage came after every upload: nothing was tested")
        self.assertIn("exit 3", run.out)
        os.killpg(server, signal.SIGCONT)
        # Every committed task is in the bucket or named. Both only for a PUT the store took but never
        # answered (it froze mid-batch): the writer cannot know, and the retry below must find it done.
        kept = self.rows_in_bucket()
        self.assertEqual(sorted(set(kept) | set(missing)), list(range(TASKS)), run.out)
        self.assertTrue(set(missing) - set(kept), "tasks really not in the bucket are named")
        print(f"named: {len(missing)}, of them in the bucket (PUTs in flight at the freeze): "
              f"{sorted(set(kept) & set(missing))}", flush=True)
        # The retry: a fresh machine with the endpoint back resumes from the bucket.
        retry = self.start(self.env(), "--resume")
        self.assertEqual(retry.wait(), 0, retry.out + retry.err)
        start = self.check_master()
        for task, began in kept.items():
            self.assertEqual(start[task], began, f"task {task} was in the bucket and ran again")

    def test_a_second_writer_waiting_while_the_first_finishes_reruns_nothing(self):
        # The trial's case: the second container waits on the first's claim, and the first finishes and
        # releases it meanwhile. The second's view of the bucket must be taken after its wait, not
        # before: else it reruns every task the first committed while it waited.
        first = self.start(self.env(), np=1)
        self.wait_for_a_segment(first)
        second = self.start(self.env(), "--resume", np=1)
        open(self.gate, "w").close()  # the first's slow tasks end: it finishes within the second's wait
        self.assertEqual(first.wait(), 0, first.out + first.err)
        code = second.wait()
        self.assertIn(code, (0, 2), second.out + second.err)  # refused while the first lived, or ran after it
        if code == 0:
            self.assertIn(f"{TASKS} already done", second.out, second.out + second.err)
        self.check_master()
        with open(self.ran) as f:
            ran = sorted(int(line) for line in f)
        self.assertEqual(ran, list(range(TASKS)), f"a task ran twice: {second.out}{second.err}")

    def test_a_wrong_key_quotes_the_cause(self):
        checked = cloud_servers.S3(scratch_dir(self), checks_keys=True)
        self.addCleanup(checked.stop)
        open(self.gate, "w").close()
        env = self.env(**{**checked.env(), "AWS_ACCESS_KEY_ID": "AKIAWRONGWRONGWRONG0"})
        run = self.start(env, np=1)
        self.assertNotEqual(run.wait(), 0, run.out + run.err)
        self.assertIn("InvalidAccessKeyId", run.err)

    def test_missing_credentials_quote_the_cause(self):
        open(self.gate, "w").close()
        env = self.env(HOME=scratch_dir(self), AWS_EC2_METADATA_DISABLED="true")
        for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
            env.pop(name, None)
        run = self.start(env, np=1)
        self.assertNotEqual(run.wait(), 0, run.out + run.err)
        self.assertIn("NoCredentialProviders", run.err)

    def test_a_second_writer_of_the_element_is_refused_and_the_first_completes(self):
        first = self.start(self.env(), "--array-index", "0", "--array-count", "2", np=1)
        self.wait_for_a_segment(first)
        # Another container with the same array index (the command of the job files resumes).
        second = self.start(self.env(), "--array-index", "0", "--array-count", "2", "--resume", np=1)
        self.assertEqual(second.wait(), 2, second.out + second.err)
        self.assertIn("another run", second.err)
        self.assertNotIn("resuming", second.err, "said before the refusal, about the live run")
        print(second.err.splitlines()[0], flush=True)
        self.assertIn(socket.gethostname(), second.err, "the other run's host")
        self.assertIsNone(first.proc.poll(), "the first run stopped: " + first.err)
        open(self.gate, "w").close()
        self.assertEqual(first.wait(), 0, first.out + first.err)
        self.assertNotIn("another run", first.err)
        self.assertIn("array element 0 of 2 finished", first.out)

    def test_a_run_whose_claim_another_took_stops_with_exit_2(self):
        run = self.start(self.env())
        self.wait_for_a_segment(run)
        # What a second writer that started while this run was frozen leaves: its own live claim.
        claim = os.path.join(self.work, "claim.json")
        with open(claim, "w") as f:
            f.write('{"run": "node-b:42:0badcafe", "host": "node-b", "started": "2026-11-28 22:00:00 UTC", '
                    '"beat": 1, "released": false}\n')
        self.store.aws("s3", "cp", claim, f"s3://{self.store.bucket}/{self.prefix}.shards/a0/writer.lock")
        self.assertEqual(run.wait(), 2, run.out + run.err)
        self.assertIn("node-b", run.err)
        self.assertIn("uploads nothing more", run.err)
        self.assertIn("ANOTHER WRITER", run.out)
        self.assertNotIn(self.prefix, self.store.keys(self.prefix), "the stopped run wrote the master")


if __name__ == "__main__":
    cloud_servers.skip_unless_available()
    unittest.main(verbosity=2)

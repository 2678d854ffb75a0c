"""`notify:` (issue 35, point 10): rank 0 runs notify.command through /bin/sh once when the run
ends, with the summary JSON on stdin and in $SHARDRUN_NOTIFY_JSON, and POSTs it to notify.url
with curl. The JSON holds the ending (end / fail / drain, the last after a SIGUSR1), the counts,
exit code, output path, elapsed time, scheduler ids and the first failure's reason. A failing
notify command leaves exit 0 as it is, with one warning line; a hanging one is stopped after
notify.timeout; without curl a URL costs one warning line; `on:` picks the endings; bad notify
fields are exit 2 naming file:line:col and the field."""
import http.server
import json
import os
import shutil
import signal
import threading
import unittest

from harness import live_processes, run, run_and_signal_rank, scratch_dir
from jobs import write_job


class Recorder(http.server.BaseHTTPRequestHandler):
    """Keeps each POST's path and body on the server (server.posts)."""

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.server.posts.append((self.path, self.headers["Content-Type"], body))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


class NotifyTest(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir(self)
        self.output = os.path.join(self.work, "n.h5")
        self.received = os.path.join(self.work, "received.json")

    def job(self, notify, argv="[true]", sweep="[0, 1, 2]"):
        return write_job(self.work, f"""
name: n
task: exec
sweep: {{i: {sweep}}}
exec: {{argv: {argv}}}
output: {{path: {self.output}}}
notify: {notify}
""")

    def test_command_gets_the_summary_on_stdin_and_in_a_file(self):
        copy = os.path.join(self.work, "copy.json")
        job = self.job(f"""{{command: 'cat > {self.received}; cp "$SHARDRUN_NOTIFY_JSON" {copy}; echo "$SHARDRUN_NOTIFY_EVENT" > {self.work}/event'}}""")

        proc = run(["run", job, "-q"], np=2, env={"SLURM_JOB_ID": "77", "SLURM_ARRAY_TASK_COUNT": "1"})

        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        with open(self.received) as f:
            summary = json.loads(f.read())
        with open(copy) as f:
            self.assertEqual(json.loads(f.read()), summary)
        with open(os.path.join(self.work, "event")) as f:
            self.assertEqual(f.read().strip(), "end")
        self.assertEqual(summary["event"], "end")
        self.assertEqual((summary["ok"], summary["failed"], summary["interrupted"], summary["pending"]), (3, 0, 0, 0))
        self.assertEqual(summary["exit_code"], 0)
        self.assertEqual(summary["output"], self.output)
        self.assertGreater(summary["elapsed_seconds"], 0)
        self.assertEqual(summary["scheduler"], "slurm")
        self.assertEqual(summary["scheduler_ids"], {"SLURM_JOB_ID": "77"})
        self.assertIsNone(summary["first_failure"])
        # The temporary file is gone once the command ended.
        self.assertFalse([name for name in os.listdir("/tmp") if name.startswith("shardrun-notify-")
                          and os.path.getmtime(os.path.join("/tmp", name)) >= os.path.getmtime(self.received)])

    def test_failed_run_names_its_first_failure(self):
        job = self.job(f"{{command: 'cat > {self.received}', on: [fail]}}",
                       argv="""[sh, -c, 'if [ {i} -ge 1 ]; then echo "no input {i}" >&2; exit 3; fi']""")

        proc = run(["run", job, "-q"], np=2)

        self.assertEqual(proc.returncode, 1, proc.stdout + proc.stderr)
        with open(self.received) as f:
            summary = json.load(f)
        self.assertEqual(summary["event"], "fail")
        self.assertEqual((summary["ok"], summary["failed"], summary["exit_code"]), (1, 2, 1))
        self.assertEqual(summary["first_failure"]["task_id"], 1)
        self.assertEqual(summary["first_failure"]["exit_code"], 3)
        self.assertIn("no input 1", summary["first_failure"]["message"])

    def test_a_drained_run_notifies_once_with_its_pending_tasks(self):
        job = self.job(f"{{command: 'cat >> {self.received}; echo >> {self.received}', on: [drain]}}",
                       argv="[sleep, '1']", sweep="[0, 1, 2, 3, 4, 5, 6, 7]")

        code, out, err = run_and_signal_rank(["run", job, "-q"], job, 0, signal.SIGUSR1, 1.5)

        self.assertIn(code, (3, 4), out + err)
        with open(self.received) as f:
            lines = [line for line in f.read().splitlines() if line.strip()]
        self.assertEqual(len(lines), 1, lines)  # once per run, by rank 0 only
        summary = json.loads(lines[0])
        self.assertEqual((summary["event"], summary["exit_code"]), ("drain", code))
        self.assertGreater(summary["pending"], 0)
        self.assertEqual(summary["ok"] + summary["pending"], 8)

    def test_endings_not_in_on_send_nothing(self):
        job = self.job(f"{{command: 'touch {self.received}', on: [fail, drain]}}")

        proc = run(["run", job, "-q"])

        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertFalse(os.path.exists(self.received))

    def test_a_failing_command_leaves_the_exit_code_and_warns_once(self):
        job = self.job("{command: 'echo about to fail >&2; exit 7'}")

        proc = run(["run", job, "-q"], np=2)

        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        warnings = [line for line in proc.stderr.splitlines() if "notify" in line and "warning" in line]
        self.assertEqual(warnings, ["shardrun: warning: notify: notify.command exited with status 7; "
                                    "the run's exit code is unchanged"], proc.stderr)
        self.assertIn("about to fail", proc.stderr)

    def test_a_hanging_command_is_stopped_after_the_timeout(self):
        marker = f"shardrun-notify-hang-{os.getpid()}"
        job = self.job(f"{{command: 'exec sleep 600 # {marker}', timeout: 1s}}")

        proc = run(["run", job, "-q"], timeout=120)

        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("notify: notify.command was still running after notify.timeout (1 s) and was stopped", proc.stderr)
        self.assertEqual(live_processes("cmdline", lambda cmdline: any(marker.encode() in part for part in cmdline)), [])

    def test_url_gets_the_summary_posted(self):
        self.assertTrue(shutil.which("curl"), "curl is not installed: scripts/install-deps installs it")
        server = http.server.HTTPServer(("127.0.0.1", 0), Recorder)
        server.posts = []
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        job = self.job(f"{{url: 'http://127.0.0.1:{server.server_port}/hook', on: end}}")

        proc = run(["run", job, "-q"], np=2)

        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertEqual(len(server.posts), 1, proc.stderr)
        path, content_type, body = server.posts[0]
        self.assertEqual((path, content_type), ("/hook", "application/json"))
        summary = json.loads(body)
        self.assertEqual((summary["event"], summary["ok"], summary["exit_code"]), ("end", 3, 0))

    def test_a_url_nothing_answers_warns_and_keeps_exit_0(self):
        job = self.job("{url: 'http://127.0.0.1:9/nothing-listens', timeout: 5s}")

        proc = run(["run", job, "-q"], env={"PATH": os.environ["PATH"]})

        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("shardrun: warning: notify: the POST to notify.url exited with status 7", proc.stderr)

    def path_without_curl(self):
        """PATH with every folder that holds curl replaced by a copy of it (links) without curl:
        MPI's own helpers (orted) stay reachable."""
        folders = []
        for number, folder in enumerate(os.environ["PATH"].split(os.pathsep)):
            if not os.path.exists(os.path.join(folder, "curl")):
                folders.append(folder)
                continue
            shadow = os.path.join(self.work, f"path{number}")
            os.mkdir(shadow)
            for name in os.listdir(folder):
                if name != "curl":
                    os.symlink(os.path.join(folder, name), os.path.join(shadow, name))
            folders.append(shadow)
        return os.pathsep.join(folders)

    def test_without_curl_on_path_one_warning(self):
        job = self.job("{url: 'http://127.0.0.1:9/x'}")

        proc = run(["run", job, "-q"], env={"PATH": self.path_without_curl()})

        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.assertIn("shardrun: warning: notify: curl is not on PATH, so nothing was POSTed to notify.url; install curl",
                      proc.stderr)

    def test_bad_notify_fields_are_exit_2_naming_the_field(self):
        cases = [("{command: 'true', on: [ends]}", "notify.on: 'ends' is not allowed (did you mean 'end'?); "
                                                   "allowed: end, fail, drain"),
                 ("{on: [end]}", "notify: needs a command, a url, or both"),
                 ("{comand: 'true'}", "notify.comand: unknown key (did you mean 'command'?)"),
                 ("{url: 'ftp://x/y'}", "notify.url: 'ftp://x/y' is not an http:// or https:// URL"),
                 ("{command: 'true', timeout: 0}", "notify.timeout: must be above 0")]
        for notify, message in cases:
            with self.subTest(notify=notify):
                job = self.job(notify)

                proc = run(["run", job, "-q"])

                self.assertEqual(proc.returncode, 2, proc.stdout + proc.stderr)
                self.assertIn(message, proc.stderr)
                self.assertIn(f"{job}:7:", proc.stderr)
                self.assertFalse(os.path.exists(self.output))


if __name__ == "__main__":
    unittest.main()

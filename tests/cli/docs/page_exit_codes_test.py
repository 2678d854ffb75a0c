"""The exit codes each command's reference page lists (issue 39, points 3 and 6) against real runs: each
command is run into a case, and the code it exits with must be on its page (`shardrun docs cli CMD`, the
same text as --help and the man page) with a meaning that names that case. Among them: `status` of a
missing file (2), `merge` of an array with an element never run (1, then 0 once it ran), `status` of
that output (3, then 0) and of a bucket it cannot reach (1), `logs` of a task that printed nothing
(1), and each command's bad input (2). docs/concepts.md's tables of `run` and `status` agree with
the pages, and it links every other command's codes."""
import os
import socket
import unittest

from harness import SOURCE_DIR, run, scratch_dir
from jobs import write_job

CONCEPTS = os.path.join(SOURCE_DIR, "docs", "concepts.md")

# Two array elements of two tasks each; task 1 prints nothing, the others print their value.
JOB = """
name: codes
task: exec
sweep: {{a: {{range: [0, 4, 1]}}}}
exec:
  argv: [sh, -c, 'if [ {{a}} != 1 ]; then echo "a={{a}}"; fi; echo "{{{{\\"v\\": {{a}}}}}}" > $SHARDRUN_RESULT']
  results: {{v: float64}}
output: {{path: {work}/codes.h5}}
"""


def table_rows(text):
    """{code: meaning} of the first Markdown table of code and meaning rows in `text`."""
    codes = {}
    for line in text.split("\n\n|", 1)[1].split("\n\n", 1)[0].splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0].isdigit():
            codes[int(cells[0])] = cells[1]
    return codes


def page_exit_codes(command):
    """{code: meaning} from the "## Exit codes" table of the command's reference page."""
    page = run(["docs", "cli", command])
    assert page.returncode == 0, page.stderr
    return table_rows("\n" + page.stdout.split("\n## Exit codes\n", 1)[1])


def concepts_section(heading):
    """The text of docs/concepts.md under `### heading`, up to the next heading."""
    with open(CONCEPTS, encoding="utf-8") as f:
        return f.read().split(f"\n### {heading}\n", 1)[1].split("\n#", 1)[0]


class ExitCodesOnThePagesTest(unittest.TestCase):
    def setUp(self):
        self.work = scratch_dir(self)
        self.out = os.path.join(self.work, "codes.h5")
        self.job = write_job(self.work, JOB.format(work=self.work))
        self.missing = os.path.join(self.work, "missing.h5")

    def assert_listed(self, args, code, phrase):
        """Runs `shardrun ARGS`; it must exit `code`, and its page must list `code` with `phrase` in its meaning."""
        done = run(args)
        self.assertEqual(done.returncode, code, f"shardrun {' '.join(args)}:\n{done.stdout}{done.stderr}")
        listed = page_exit_codes(args[0])
        self.assertIn(code, listed, f"{args[0]} exits {code}, and its page lists only {sorted(listed)}")
        self.assertIn(phrase, listed[code], f"{args[0]}: exit {code}")

    def test_bad_input_is_2_on_every_page(self):
        bad = write_job(self.work, "name: bad\ntask: exec\nexec: {argv: [true]}\nschedule: sometimes\n", "bad.yaml")
        cases = [
            (["status", self.missing], "no output at that path"),
            (["merge", self.missing], "nothing to learn the job from"),
            (["table", self.missing], "no results file at that path"),
            (["export", self.missing, "--grid", os.path.join(self.work, "x.nc")], "no results file at that path"),
            (["report", self.missing], "no results file at that path"),
            (["logs", self.missing, "0"], "no output at that path"),
            (["run", bad], "file:line:col"),
            (["plan", bad], "the job file does not validate"),
            (["submit", bad, "--to", "slurm", "--dry-run"], "the job file does not validate"),
            (["kinds", "heat3d"], "NAME is not a task kind"),
            (["docs", "jobfile"], "a page that is not one"),
            (["selftest", "--device", "tpu"], "usage error"),
            (["bench", "reduce"], "an unknown benchmark"),
            (["info", "--array-index", "-1"], "usage error"),
        ]
        for args, phrase in cases:
            with self.subTest(args=args):
                self.assert_listed(args, 2, phrase)
        # Nothing was written where the input was bad.
        self.assertEqual(sorted(os.listdir(self.work)), ["bad.yaml", "job.yaml"])

    def test_an_array_with_an_element_never_run(self):
        element = ["run", self.job, "-q", "--array-count", "2", "--array-index"]
        self.assertEqual(run(element + ["0"]).returncode, 0)

        self.assert_listed(["merge", self.out], 1, "array elements are missing or not finished")
        self.assert_listed(["status", self.out], 3, "array elements missing")

        self.assertEqual(run(element + ["1"]).returncode, 0)
        self.assert_listed(["merge", self.out], 0, "every array element finished")
        self.assert_listed(["status", self.out], 0, "every task ok")

    def test_logs_of_a_task_that_printed_and_of_one_that_did_not(self):
        self.assertEqual(run(["run", self.job, "-q"]).returncode, 0)

        self.assert_listed(["logs", self.out, "2"], 0, "printed the task's output")
        self.assert_listed(["logs", self.out, "1"], 1, "the task kept no output on that stream")
        self.assert_listed(["logs", self.out, "4"], 2, "no such task id")

    def test_status_of_a_bucket_it_cannot_reach(self):
        # A port nothing listens on: rclone's connection is refused at once. status then has printed
        # nothing and exits 5, a code of its own: 1 would read as "complete, with failed tasks".
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            endpoint = f"http://127.0.0.1:{probe.getsockname()[1]}"
        env = {"AWS_ENDPOINT_URL_S3": endpoint, "AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "y"}

        done = run(["status", "s3://bucket/codes.h5"], env=env, timeout=120)

        self.assertEqual(done.returncode, 5, done.stdout + done.stderr)
        self.assertEqual(done.stdout, "")
        self.assertIn("an output in a bucket that could not be downloaded", page_exit_codes("status")[5])
        self.assertNotIn("bucket", page_exit_codes("status")[1])

    def test_what_prints_and_checks_exits_0(self):
        self.assert_listed(["plan", self.job, "--ranks", "2"], 0, "the plan was printed")
        self.assert_listed(["kinds", "exec"], 0, "the kind's parameters were printed")
        self.assert_listed(["docs", "cli", "merge"], 0, "the page was printed")
        self.assert_listed(["selftest", "--device", "cpu"], 0, "every check passed")


class ConceptsAgreesWithThePagesTest(unittest.TestCase):
    def test_status_table_is_the_pages(self):
        self.assertEqual(table_rows(concepts_section("`status`")), page_exit_codes("status"))

    def test_run_table_has_the_pages_codes(self):
        self.assertEqual(sorted(table_rows(concepts_section("`run`"))), sorted(page_exit_codes("run")))

    def test_every_other_command_links_its_exit_codes(self):
        section = concepts_section("The other commands")
        for name in run(["docs", "commands"]).stdout.split():
            if name != "docs":  # the docs build's command, which `shardrun --help` does not list
                self.assertIn(f"[`{name}`](reference/cli/{name}.md#exit-codes)", section)


if __name__ == "__main__":
    unittest.main()

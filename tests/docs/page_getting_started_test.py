"""docs/getting-started.md as a reader follows it, from a built clone (tutorial_support.clone): the first
run of examples/heat-sweep.yaml under mpirun -np 2, the second run refused (exit 2, the output untouched),
`status`, `table` and the h5py session, each quoted output checked against the real run. Then the
commands of "Using it" that need nothing but that output and this machine, each of which must exit 0.
The "Two commands" block is shown only (scripts/test runs every test; both install with apt-get and
build): what scripts/run-example prints after that is checked against the page's quote by running it in
a clone whose install-deps and build are taken as done. The lines of "Using it" left out below are shown
only; each exclusion says why."""
import hashlib
import os
import re
import unittest

import page_snippets
import tutorial_support

# Lines of "Using it" not run here, by a word in them, with the reason (a line with none of them is run).
NOT_RUN = {
    "job.yaml": "the reader's own job file",
    "hosts": "a hostfile of the reader's nodes",
    "docs.h5": "the output of a line-input job of the reader's",
    "submit": "`--to slurm` queues jobs with sbatch (the shared Slurm cluster is not for these tests)",
    "logs": "heat2d tasks are kernels: they keep no stdout to show (exit 1, as the page's Concepts says)",
    "run examples/heat-sweep.yaml": "the page's first run already ran it (again it would be refused, exit 2)",
    "bench allreduce": "allreduces up to 64 MB at 4 ranks: 31 s on this 2-core machine "
                       "(cli_bench_allreduce_test runs it smaller)",
}


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class GettingStartedPageTest(unittest.TestCase):
    def test_the_page_as_written(self):
        steps = tutorial_support.docs_page("getting-started.md")
        session = tutorial_support.reader(self)
        tutorial_support.clone(session.folder)
        output = os.path.join(session.folder, "results", "heat-sweep.h5")

        refused = next(k for k, s in enumerate(steps) if s.kind == "command" and s.exit_code == 2)
        session.run(steps[:refused])
        before = digest(output)
        session.run(steps[refused:])
        self.assertEqual(digest(output), before, "the refused run wrote nothing")

        using = [s for s in page_snippets.section(steps, "Using it") if s.kind == "shown" and s.path == "bash"]
        self.assertEqual(len(using), 1, "one block of commands under 'Using it'")
        ran = []
        for line in using[0].text.splitlines():
            command = re.sub(r"\s+#.*$", "", line).strip()
            if not command or any(word in command for word in NOT_RUN):
                continue
            command = re.sub(r"\s*\[[^]]*\]", "", command)  # an optional part in brackets: the plain form
            code, printed = session.command(command, timeout=300)
            self.assertEqual(code, 0, f"`{command}` (from 'Using it'):\n" + "\n".join(printed))
            ran.append(command)
            print(f"ran from 'Using it': {command}", flush=True)
        self.assertGreaterEqual(len(ran), 9, ran)
        self.assertTrue(os.path.exists(os.path.join(session.folder, "heat.nc")), "export --grid wrote heat.nc")

    def test_the_failed_task_quote_is_concepts_checked_one(self):
        """"Using it" quotes `status` of a failed task: the lines of Concepts' quote of its failing job, which
        docs_page_concepts_placement checks against a real run (so the two cannot drift apart)."""
        shown = [s for s in page_snippets.section(tutorial_support.docs_page("getting-started.md"), "Using it")
                 if s.kind == "shown" and s.path == "text"]
        self.assertEqual(len(shown), 1)
        status = [s for s in tutorial_support.docs_page("concepts.md")
                  if s.kind == "command" and s.text.startswith("shardrun status results/exits.h5")]
        self.assertEqual(len(status), 1)
        quoted = shown[0].text.rstrip("\n").split("\n")
        checked = status[0].expected[-len(quoted):]
        for pattern, line in zip(checked, quoted):
            self.assertTrue(page_snippets.line_matches(pattern, line), f"{line!r} is not Concepts' {pattern!r}")

    def test_what_run_example_prints(self):
        steps = tutorial_support.docs_page("getting-started.md")
        quote = [s for s in page_snippets.section(steps, "Two commands") if s.kind == "shown" and s.path == "text"]
        self.assertEqual(len(quote), 1, "one quote of scripts/run-example's output")
        session = tutorial_support.reader(self)
        checkout = session.folder
        os.makedirs(os.path.join(checkout, "build"))
        os.symlink(tutorial_support.SHARDRUN, os.path.join(checkout, "build", "shardrun"))
        os.symlink(os.path.join(tutorial_support.SOURCE_DIR, "examples"), os.path.join(checkout, "examples"))
        # The scripts as they are, but apt-get and the build: here all is installed and built already.
        scripts = os.path.join(checkout, "scripts")
        os.makedirs(scripts)
        for name in os.listdir(os.path.join(tutorial_support.SOURCE_DIR, "scripts")):
            if name in ("install-deps", "build"):
                with open(os.path.join(scripts, name), "w") as f:
                    f.write("#!/bin/sh\n# taken as done by the docs test: the build under test exists\nexit 0\n")
                os.chmod(os.path.join(scripts, name), 0o755)
            else:
                os.symlink(os.path.join(tutorial_support.SOURCE_DIR, "scripts", name), os.path.join(scripts, name))
        code, printed = session.command("scripts/run-example")
        self.assertEqual(code, 0, "\n".join(printed))
        expected = quote[0].text.rstrip("\n").split("\n")
        self.assertTrue(page_snippets.output_matches(expected, printed),
                        "--- the page:\n" + "\n".join(expected) + "\n--- the run:\n" + "\n".join(printed))


if __name__ == "__main__":
    tutorial_support.require_pyenv()
    unittest.main(verbosity=2)

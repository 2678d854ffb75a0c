"""docs/getting-started.md as a reader follows it, from a built clone (tutorial_support.clone): the first
run of examples/heat-sweep.yaml under mpirun -np 2, the second run refused (exit 2, the output untouched),
`status`, `table` and the h5py session, each quoted output checked against the real run. Then the
commands of "Using it" that need nothing but that output and this machine, each of which must exit 0.
The "Two commands" block (scripts/run-example, scripts/test: apt-get and a whole build) and the lines of
"Using it" left out below are shown only; each exclusion says why."""
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
    "bench allreduce": "a benchmark of 64 MB allreduces at 4 ranks: minutes on this 2-core machine",
    "selftest": "every kernel on every device, checked by the selftest tests themselves",
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

        using = [s for s in page_snippets.section(steps, "Using it") if s.kind == "shown"]
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
        self.assertGreaterEqual(len(ran), 6, ran)
        self.assertTrue(os.path.exists(os.path.join(session.folder, "heat.nc")), "export --grid wrote heat.nc")


if __name__ == "__main__":
    tutorial_support.require_pyenv()
    unittest.main(verbosity=2)

"""The docs extractor's own rules (page_snippets.py), on made-up pages: which blocks are files, commands
or shown only; the exit-code comment; `cd` and `export` carrying over; the output-matching rule (elided
lines, "..." in a line, numbers with a decimal point standing for any number, integers exact); a page
whose quote differs from the run, or whose command exits otherwise, fails naming its line; a ```pycon
block run statement by statement, each printed value compared on its own; a `<!-- docs-test: ... -->`
note kept with the block after it; a job-file fragment merged into a base job key by key."""
import os
import unittest

import yaml

import job_fragments
import page_snippets
from harness import scratch_dir

PAGE = '''# A page

## Files and commands

```yaml title="jobs/a.yaml"
name: a
```

```bash
rm -rf /   # shown only: never run
```

```console
$ cat jobs/a.yaml
name: a
$ printf 'took 1.25 s: 3 ok\\nline two\\nline three\\n'
took 9.5 s: 3 ok
...
line three
$ cd jobs && export GREETING=hello
$ echo "$GREETING from $(basename $PWD)"
hello from jobs
$ sh -c 'echo "exit \\
three"; exit 3'   # exits 3
exit three
```
'''


class ParseTest(unittest.TestCase):
    def test_blocks_become_files_and_commands(self):
        steps = page_snippets.parse(PAGE)
        self.assertEqual([s.kind for s in steps], ["file", "shown", "command", "command", "command", "command", "command"])
        self.assertEqual(steps.pop(1).path, "bash", "a bash block is kept, as shown only, for tests that check it")
        self.assertEqual(steps[0].path, "jobs/a.yaml")
        self.assertEqual(steps[0].text, "name: a\n")
        self.assertEqual(steps[0].section, "Files and commands")
        self.assertEqual(steps[2].expected, ["took 9.5 s: 3 ok", "...", "line three"])
        self.assertEqual(steps[5].exit_code, 3)
        self.assertIn("\nthree", steps[5].text, "a trailing backslash continues the command")

    def test_a_pycon_block_is_a_python_session(self):
        steps = page_snippets.parse("```pycon\n>>> x = [1.5,\n...      2]\n>>> x\n[1.5, 2]\n"
                                    ">>> for k in x:\n...     print(k)\n1.5\n...\n```\n")
        self.assertEqual([s.kind for s in steps], ["python"])
        self.assertEqual(steps[0].statements, [(2, "x = [1.5,\n     2]", []), (4, "x", ["[1.5, 2]"]),
                                               (6, "for k in x:\n    print(k)", ["1.5", "..."])],
                         "a '... ' line right after a statement continues it; a bare '...' later is the elision")

    def test_a_note_before_the_fence_is_kept(self):
        steps = page_snippets.parse("<!-- docs-test: exits 2 -->\n```yaml\nretries: -1\n```\n\n"
                                    "<!-- docs-test: not a job: why -->\n\n```yaml\na: 1\n```\n\n"
                                    "text\n```yaml\nb: 1\n```\n")
        self.assertEqual([s.note for s in steps], ["exits 2", "not a job: why", None])

    def test_a_fragment_merges_key_by_key(self):
        base = {"name": "f", "task": "exec", "exec": {"argv": ["true"]}}
        self.assertEqual(job_fragments._merged(base, {"exec": {"mode": "worker"}, "retries": 2}),
                         {"name": "f", "task": "exec", "exec": {"argv": ["true"], "mode": "worker"}, "retries": 2})

    def test_a_fragment_is_read_as_yaml_cpp_reads_a_job(self):
        fragment = yaml.load("notify:\n  on: [end]\nflag: yes\nkeep: true\n", Loader=job_fragments._Yaml12Loader)
        self.assertEqual(fragment, {"notify": {"on": ["end"]}, "flag": "yes", "keep": True}, "YAML 1.2: `on` is a word")

    def test_an_unclosed_block_is_an_error(self):
        with self.assertRaisesRegex(ValueError, "never closed"):
            page_snippets.parse("```console\n$ true\n")


class MatchTest(unittest.TestCase):
    def test_numbers_with_a_point_vary_integers_do_not(self):
        self.assertTrue(page_snippets.line_matches("done in 1.88 s: 33 ok", "done in 120.5 s: 33 ok"))
        self.assertTrue(page_snippets.line_matches("x 2.7986e+06", "x 12"))
        self.assertFalse(page_snippets.line_matches("33 ok", "32 ok"))
        self.assertTrue(page_snippets.line_matches("[   5.0s] done 3/3", "[  10.1s] done 3/3"), "a unit may follow")
        self.assertFalse(page_snippets.line_matches("v1.60", "v1.61"), "a version is not a number")
        self.assertFalse(page_snippets.line_matches("results/a.h5", "results/a.h6"))

    def test_spaces_and_dots_in_a_line(self):
        self.assertTrue(page_snippets.line_matches("  n   cpu_seconds", "n cpu_seconds   "))
        self.assertTrue(page_snippets.line_matches("interrupted by ... kept", "interrupted by SIGUSR1 to rank 1: kept"))
        self.assertFalse(page_snippets.line_matches("a b", "ab"))

    def test_elided_lines(self):
        match = page_snippets.output_matches
        self.assertTrue(match(["a", "...", "d"], ["a", "b", "c", "d"]))
        self.assertFalse(match(["a", "d"], ["a", "b", "c", "d"]), "lines left out need a '...' line")
        self.assertFalse(match(["b", "..."], ["a", "b"]), "without '...' first, the quote starts the output")
        self.assertFalse(match(["...", "a"], ["a", "b"]), "without '...' last, the quote ends the output")
        self.assertTrue(match(["...", "b", "..."], ["a", "b", "c"]))
        self.assertTrue(match([], []))
        self.assertFalse(match([], ["printed"]), "a command quoted with no output must print nothing")


class SessionTest(unittest.TestCase):
    def session(self):
        session = page_snippets.Session(dict(os.environ), folder=scratch_dir(self))
        self.addCleanup(session.close)
        return session

    def test_the_page_runs(self):
        session = self.session()
        session.run(page_snippets.parse(PAGE))
        self.assertEqual(len(session.log), 5)
        self.assertTrue(os.path.exists(os.path.join(session.folder, "jobs", "a.yaml")))

    def test_a_different_output_fails_naming_the_line(self):
        steps = page_snippets.parse("```console\n$ echo 4 ok\n5 ok\n```\n")
        with self.assertRaisesRegex(AssertionError, "page line 2: `echo 4 ok` printed what the page does not quote"):
            self.session().run(steps)

    def test_an_unexpected_exit_code_fails(self):
        steps = page_snippets.parse("```console\n$ exit 3\n```\n")
        with self.assertRaisesRegex(AssertionError, "exited 3, the page says 0"):
            self.session().run(steps)

    def test_a_python_session_runs_statement_by_statement(self):
        session = self.session()
        session.run(page_snippets.parse("```pycon\n>>> import math\n>>> math.pi, 2 + 1\n(3.14, 3)\n"
                                        ">>> for k in range(2):\n...     print(k)\n0\n1\n>>> 1 / 0\n...\n"
                                        "ZeroDivisionError: division by zero\n```\n"))
        with self.assertRaisesRegex(AssertionError, "page line 4: `>>> 2 \\+ 1` printed what the page does not quote"):
            self.session().run(page_snippets.parse("```pycon\n>>> 1\n1\n>>> 2 + 1\n4\n```\n"))

    def test_left_processes_are_killed(self):
        session = self.session()
        session.run(page_snippets.parse("```console\n$ (sleep 1000 > /dev/null 2>&1 &)\n```\n"))
        self.assertTrue(session.processes(), "the background sleep carries the session's token")
        session.close()
        self.assertEqual(session.processes(), [])


if __name__ == "__main__":
    unittest.main(verbosity=2)

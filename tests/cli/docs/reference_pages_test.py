"""scripts/docs-reference (issue 39, points 2, 3 and 6): from the built binary it writes job-file.md,
kinds.md, cli/index.md and one cli/<command>.md per command `shardrun --help` lists (and per hidden
one), each with its sections Description, Options, Exit codes and Example; without a binary it says so
in one line and writes nothing. Every `<command> --help` shows the same description, example and exit
codes as its page and ends with that page, `shardrun --help` with docs/index.md."""
import os
import re
import subprocess
import unittest

from harness import SHARDRUN, SOURCE_DIR, run, scratch_dir

SCRIPT = os.path.join(SOURCE_DIR, "scripts", "docs-reference")


def listed_commands():
    """The commands `shardrun --help` lists: the lines under "commands:"."""
    help_text = run(["--help"]).stdout
    block = help_text.split("commands:\n", 1)[1].split("\n\n", 1)[0]
    return [line.split()[0] for line in block.splitlines()]


def read(path):
    with open(path, encoding="utf-8") as stream:
        return stream.read()


def docs_reference(out, env=None):
    return subprocess.run([SCRIPT, out], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})


class DocsReferenceTest(unittest.TestCase):
    def test_writes_every_page(self):
        out = os.path.join(scratch_dir(self), "reference")

        proc = docs_reference(out, {"SHARDRUN_BIN": SHARDRUN})

        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(sorted(os.listdir(out)), ["cli", "job-file.md", "kinds.md"])
        hidden = run(["docs", "commands"]).stdout.split()
        commands = listed_commands()
        self.assertIn("run", commands)
        self.assertNotIn("docs", commands)
        self.assertEqual(sorted(os.listdir(os.path.join(out, "cli"))),
                         sorted(["index.md"] + [f"{name}.md" for name in set(commands) | set(hidden)]))
        index = read(os.path.join(out, "cli", "index.md"))
        for name in commands:
            page = read(os.path.join(out, "cli", f"{name}.md"))
            self.assertTrue(page.startswith(f"# shardrun {name}\n"), page[:200])
            # Each page has its sections in this order, none of them empty (issue 39, points 3 and 6).
            self.assertEqual(re.findall(r"^## (.+)$", page, re.M),
                             ["Synopsis", "Description", "Options", "Exit codes", "Example"], name)
            for section in re.split(r"^## .+$", page, flags=re.M)[1:]:
                self.assertGreater(len(section.split()), 2, f"{name}: an empty section")
            self.assertRegex(page, r"\n## Exit codes\n\n\| code \| meaning \|\n\|---\|---\|\n\| 0 \| ", name)
            self.assertRegex(page, r"\n\| 2 \| [^|\n]*usage", name)
            self.assertRegex(page, rf"\n## Example\n\n```bash\n[^\n]*shardrun {name}\b", name)
            self.assertIn(f"[`{name}`]({name}.md)", index)
            # Every option --help prints has a row on the page.
            for option in re.findall(r"^\s+(?:-\w \[ )?--([a-z][a-z0-9-]*)", run([name, "--help"]).stdout, re.M):
                self.assertIn(f"--{option}`", page, f"{name} --{option}")
        job_file = read(os.path.join(out, "job-file.md"))
        self.assertIn("| `schedule.kind` | choice | dynamic | static, block, cyclic, dynamic |", job_file)
        kinds = read(os.path.join(out, "kinds.md"))
        for line in run(["kinds"]).stdout.splitlines():
            if line and not line.startswith("'shardrun kinds"):
                self.assertIn(f"\n## `{line.split()[0]}` ", kinds)

    def test_status_page_has_its_own_exit_codes(self):
        out = os.path.join(scratch_dir(self), "reference")

        self.assertEqual(docs_reference(out, {"SHARDRUN_BIN": SHARDRUN}).returncode, 0)

        page = read(os.path.join(out, "cli", "status.md"))
        self.assertIn("| 4 | a run is writing it right now", page)
        self.assertIn("| 3 | not complete and no run is writing it", page)

    def test_no_binary_is_one_line_and_nothing_written(self):
        work = scratch_dir(self)
        out = os.path.join(work, "reference")

        proc = docs_reference(out, {"SHARDRUN_BIN": os.path.join(work, "no-such-shardrun")})

        self.assertEqual(proc.returncode, 2)
        self.assertEqual(proc.stderr.splitlines(), [
            f"docs-reference: no shardrun binary at {work}/no-such-shardrun; build it first (scripts/build) "
            "or set SHARDRUN_BIN"])
        self.assertEqual(os.listdir(work), [])


class HelpNamesItsPageTest(unittest.TestCase):
    def test_every_command_help_ends_with_its_page(self):
        for name in listed_commands() + ["docs"]:
            proc = run([name, "--help"])

            self.assertEqual(proc.returncode, 0, name)
            self.assertEqual(proc.stdout.splitlines()[-1], f"Reference: docs/reference/cli/{name}.md")

    def test_every_command_help_has_its_description_example_and_exit_codes(self):
        for name in listed_commands() + ["docs"]:
            help_text = run([name, "--help"]).stdout
            page = run(["docs", "cli", name]).stdout

            # The description's words, as the page has them (without the backticks), wrapped to 80 columns.
            description = page.split("\n## Description\n\n", 1)[1].split("\n## ", 1)[0]
            self.assertIn(" ".join(description.replace("`", "").split()), " ".join(help_text.split()), name)
            wrapped = help_text.split("\n\n", 1)[1].split("\nExample:\n", 1)[0]
            self.assertTrue(all(len(line) <= 80 for line in wrapped.splitlines()), f"{name}:\n{wrapped}")
            example = page.split("\n## Example\n\n```bash\n", 1)[1].split("\n", 1)[0]
            self.assertIn(f"\nExample:\n  {example}\n", help_text, name)
            codes = re.findall(r"^\| (\d+) \| ", page.split("\n## Exit codes\n", 1)[1], re.M)
            listed = re.findall(r"^  (\d+)  \S", help_text.split("\nExit codes:\n", 1)[1], re.M)
            self.assertEqual(listed, codes, name)

    def test_main_help_ends_with_the_index(self):
        proc = run(["--help"])

        self.assertEqual(proc.returncode, 0)
        self.assertIn("docs/index.md", proc.stdout.splitlines()[-1])

    def test_docs_refuses_an_unknown_page_in_one_line(self):
        proc = run(["docs", "jobfile"])

        self.assertEqual(proc.returncode, 2)
        self.assertEqual(len(proc.stderr.splitlines()), 1, proc.stderr)
        self.assertIn("docs: 'jobfile' is not a page; the pages: job-file, kinds, cli, man, man-include, commands", proc.stderr)


if __name__ == "__main__":
    unittest.main()

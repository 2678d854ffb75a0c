"""Man pages (issue 39, point 3): `cmake --install` puts shardrun(1) and shardrun-<command>(1) for
every command into share/man/man1 of the prefix, and `man -l` renders one with its synopsis,
options and exit status, made from the same option tables as --help; every command's page has a
DESCRIPTION beyond its synopsis, the EXIT STATUS codes of its reference page, and an EXAMPLES line."""
import os
import re
import subprocess
import unittest

from harness import run, scratch_dir

BUILD_DIR = os.environ["SHARDRUN_BUILD_DIR"]


def rendered_sections(page):
    """{heading: its text} of a man page as groff renders it (headings start a line, text is indented)."""
    proc = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-rLL=100n", page], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    # groff -Tutf8 writes bold and underline as overstrikes ("N\bN"); U+2010 is its hyphen.
    text = re.sub(".\b", "", proc.stdout).replace("\u2010", "-").replace("\u2212", "-")
    sections, heading = {}, None
    for line in text.splitlines()[1:-1]:  # the first and last lines are the page's header and footer
        if re.match(r"^[A-Z][A-Z ]+$", line):
            heading = line.strip()
            sections[heading] = ""
        elif heading is not None:
            sections[heading] += line + "\n"
    return sections


class ManPagesTest(unittest.TestCase):
    def setUp(self):
        self.prefix = scratch_dir(self)
        proc = subprocess.run(["cmake", "--install", BUILD_DIR, "--prefix", self.prefix, "--component", "man"],
                              capture_output=True, text=True, timeout=120)
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        self.man1 = os.path.join(self.prefix, "share", "man", "man1")
        self.assertTrue(os.path.isdir(self.man1),
                        f"nothing installed into {self.man1}: was help2man found when the build was configured?")

    def test_a_page_per_command(self):
        commands = run(["docs", "commands"]).stdout.split()

        pages = sorted(os.listdir(self.man1))

        self.assertIn("run", commands)
        self.assertEqual(pages, sorted(["shardrun.1"] + [f"shardrun-{name}.1" for name in commands]))

    def test_man_renders_the_status_page(self):
        proc = subprocess.run(["man", "-l", os.path.join(self.man1, "shardrun-status.1")], capture_output=True,
                              text=True, timeout=60, env={**os.environ, "MANPAGER": "cat", "MANWIDTH": "100"})

        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stderr, "")
        text = " ".join(proc.stdout.split())  # man justifies lines: compare words, not spaces
        for part in ("NAME", "shardrun-status - show done / failed / pending tasks", "SYNOPSIS",
                     "shardrun status [options] OUTPUT.h5", "--json", "--by-host", "EXIT STATUS",
                     "a run is writing it right now", "docs/reference/cli/status.md"):
            self.assertIn(part, text)

    def test_every_command_page_has_description_exit_status_and_example(self):
        for name in run(["docs", "commands"]).stdout.split():
            reference = run(["docs", "cli", name]).stdout
            codes = re.findall(r"^\| (\d+) \| ", reference.split("\n## Exit codes\n", 1)[1], re.M)

            sections = rendered_sections(os.path.join(self.man1, f"shardrun-{name}.1"))

            for heading in ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "EXAMPLES", "SEE ALSO"):
                self.assertIn(heading, sections, f"shardrun-{name}(1)")
            # The synopsis sentence, then the description's paragraphs.
            self.assertGreater(len(sections["DESCRIPTION"].split()), 40, f"shardrun-{name}(1): {sections['DESCRIPTION']}")
            self.assertEqual(re.findall(r"^ {7}(\d+)(?:\s|$)", sections["EXIT STATUS"], re.M), codes, f"shardrun-{name}(1)")
            self.assertIn(f"shardrun {name}", " ".join(sections["EXAMPLES"].split()), f"shardrun-{name}(1)")

    def test_main_page_lists_the_commands(self):
        proc = subprocess.run(["groff", "-man", "-Tutf8", "-ww", os.path.join(self.man1, "shardrun.1")],
                              capture_output=True, text=True, timeout=60)

        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stderr, "")
        # groff -Tutf8 writes bold and underline as overstrikes ("N\bN"): keep the letters.
        text = " ".join(re.sub(".\b", "", proc.stdout).split())
        self.assertIn("shardrun - run a job's tasks over array elements, MPI ranks and GPUs, results in one HDF5 file",
                      text.replace("\u2019", "'"))
        self.assertIn("shardrun --help | --version", text)
        self.assertIn("submit", proc.stdout)
        self.assertIn("shardrun-COMMAND(1)", proc.stdout.replace("\u2010", "-"))


if __name__ == "__main__":
    unittest.main()

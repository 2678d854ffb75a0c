"""Issue 33's counts that stay true: a throwaway subcommand, `hello`, and a throwaway submit target,
`local`, added by editing exactly the files that docs/developing/extending.md ("A subcommand" and
"A submit target") lists, into a copy of the source tree under the build tree. The copy is built as
the tree is (through ccache: only the new and edited files compile) WITH its tests, and then:
`shardrun hello` runs; the `check()` test of every subcommand passes with hello's case (and fails
without one: CommandChecks.EverySubcommandHasACheckCase); hello's end-to-end test is found by the
CLI glob with no CMake line; `submit --to local` writes its script, with the option the target brings.
The page's lists are parsed, and the counts they state are checked against them, so the test fails
when the lists and what a subcommand or a target needs drift apart.
"""
import os
import re
import shutil
import subprocess
import sys
import unittest

from hello_and_local_files import SUBCOMMAND, SUBCOMMAND_FILES, TARGET, TARGET_FILES
from tree_copy import CMAKE, check_call, configure_copy, copy_tree

SOURCE_DIR = os.environ["SHARDRUN_SOURCE_DIR"]
BUILD_DIR = os.environ["SHARDRUN_BUILD_DIR"]


def extending_list(page_text, heading):
    """(stated count, paths) of the numbered list under **heading** of docs/developing/extending.md."""
    section = page_text.split("# Extending shardrun", 1)[1].split("\n## ", 1)[0]
    head, rest = section.split(f"**{heading}**", 1)[1].split("\n", 1)
    # The list is the first paragraph after the heading's line that starts with "1.".
    block = next(p for p in rest.split("\n\n") if p.lstrip("\n").startswith("1. "))
    count = int(re.search(r"(\d+) files", head).group(1))
    paths = [p for p in re.findall(r"`([^`\s]+)`", block) if "/" in p or p.endswith(".md")]
    paths = [p for p in paths if not p.startswith(".")]  # `.cpp` alone names no file
    return count, list(dict.fromkeys(paths))


def apply(src, files, name):
    for rel, change in files.items():
        path = os.path.join(src, rel.replace("NAME", name))
        if isinstance(change, str):
            if os.path.exists(path):
                raise AssertionError(f"{rel}: the tree already has {path}")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            text = change
        else:
            with open(path) as f:
                text = change(f.read())
        with open(path, "w") as f:
            f.write(text)


class ThrowawaySubcommandAndTargetTest(unittest.TestCase):
    def setUp(self):
        self.work = os.path.join(BUILD_DIR, "extend-throwaway-subcommand-target")
        shutil.rmtree(self.work, ignore_errors=True)
        self.addCleanup(shutil.rmtree, self.work, True)
        self.log = []

    def test_extending_lists_are_what_a_subcommand_and_a_target_need(self):
        with open(os.path.join(SOURCE_DIR, "docs", "developing", "extending.md")) as f:
            page = f.read()
        for heading, files in (("A subcommand", SUBCOMMAND_FILES), ("A submit target", TARGET_FILES)):
            count, listed = extending_list(page, heading)
            self.assertEqual(sorted(listed), sorted(files), f"docs/developing/extending.md's '{heading}' list and the files this test edits differ")
            self.assertEqual(count, len(listed), f"docs/developing/extending.md's '{heading}' states {count} files but lists {len(listed)}")

        src = os.path.join(self.work, "src")
        copy_tree(SOURCE_DIR, src)
        apply(src, SUBCOMMAND_FILES, SUBCOMMAND)
        apply(src, TARGET_FILES, TARGET)
        build, env = configure_copy(src, BUILD_DIR, self.log, tests=True)
        check_call([CMAKE, "--build", build, "-j2", "--target", "shardrun", "runner_cli_tests"], self.log, env=env)
        shardrun = os.path.join(build, "shardrun")

        self.assertEqual(check_call([shardrun, "hello", "--times", "3"], self.log).stdout, "hello\n" * 3)
        self.assertIn(SUBCOMMAND, check_call([shardrun, "--help"], self.log).stdout)
        refused = subprocess.run([shardrun, "hello", "--times", "0"], capture_output=True, text=True)
        self.assertEqual(refused.returncode, 2, refused.stderr)
        self.assertIn("--times must be at least 1", refused.stderr)

        # hello's check() case, every other subcommand's, and the rule that each has one.
        checks = check_call([os.path.join(build, "tests", "runner", "runner_cli_tests"), "--gtest_filter=CommandChecks.*"],
                            self.log).stdout
        self.assertIn("[  PASSED  ] 3 tests", checks)
        # hello's end-to-end test, registered by the glob of tests/cli/<feature>/ with no CMake line.
        listed = check_call(["ctest", "-N", "-R", f"^cli_{SUBCOMMAND}_test$"], self.log, cwd=build).stdout
        self.assertIn(f"cli_{SUBCOMMAND}_test", listed)
        check_call(["ctest", "--output-on-failure", "-R", f"^cli_{SUBCOMMAND}_test$"], self.log, cwd=build)

        # The target: its usage line, its option group, and its test in the copy's submit_test.py.
        usage = check_call([shardrun, "submit", "--help"], self.log).stdout
        self.assertIn(f"|{TARGET}", usage.splitlines()[0])
        self.assertIn("This machine (--to local):", usage)
        cli = os.path.join(src, "tests", "cli")
        env_cli = dict(os.environ, SHARDRUN_BIN=shardrun, SHARDRUN_SOURCE_DIR=src, SHARDRUN_BUILD_DIR=build, PYTHONPATH=cli)
        check_call([sys.executable, os.path.join(cli, "submit", "submit_test.py"), "LocalTargetTest"], self.log,
                   env=env_cli, cwd=cli)
        print("\n".join(self.log), file=sys.stderr)


if __name__ == "__main__":
    unittest.main()

#!/usr/bin/env python3
"""The docs-pointer check against the tree, and against small made-up trees that break it.

Each made-up tree is a temp folder with a runner/ source that names pointers and a docs/ page;
the check must pass exactly when every pointer has its page and anchor.
"""

import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
CHECK = HERE / "check_docs_links.py"

PAGE = """# Troubleshooting

## Output exists {#output-exists}

Text.

## The `run` command: exit codes

```text
## not a heading (inside a fence)
```

## Disk full

## Disk full
"""


def run_check(repo, *args):
    return subprocess.run([sys.executable, str(CHECK), str(repo), *args], capture_output=True, text=True, timeout=60)


class DocsLinksTest(unittest.TestCase):
    def setUp(self):
        self.temp = tempfile.TemporaryDirectory(prefix="check-docs-links-")
        self.repo = pathlib.Path(self.temp.name)
        (self.repo / "docs").mkdir()
        (self.repo / "docs/troubleshooting.md").write_text(PAGE)
        (self.repo / "runner").mkdir()

    def tearDown(self):
        self.temp.cleanup()

    def write_source(self, *lines):
        (self.repo / "runner/messages.cpp").write_text("\n".join(lines) + "\n")

    def test_the_tree_resolves_every_pointer(self):
        args = []
        generator = REPO / "scripts/docs-reference"
        if generator.is_file() and os.environ.get("SHARDRUN_BIN"):
            # Pointers into the generated reference are checked against a fresh copy of it.
            reference = pathlib.Path(self.temp.name) / "reference"
            subprocess.run([str(generator), str(reference)], check=True, capture_output=True, timeout=300)
            args = ["--reference-dir", str(reference)]

        result = run_check(REPO, *args)

        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("docs pointers in the sources, each to a page and anchor that exist", result.stdout)

    def test_explicit_anchors_heading_slugs_and_repeats_resolve(self):
        self.write_source('"(see docs/troubleshooting.md#output-exists)"',
                          '"see docs/troubleshooting.md#the-run-command-exit-codes"',
                          '"docs/troubleshooting.md#disk-full or docs/troubleshooting.md#disk-full_1"',
                          '"the page: docs/troubleshooting.md"')

        result = run_check(self.repo)

        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("5 docs pointers", result.stdout)

    def test_a_missing_anchor_fails_naming_the_source_line(self):
        self.write_source("// fine", '"(see docs/troubleshooting.md#output-exist)"')

        result = run_check(self.repo)

        self.assertEqual(result.returncode, 1)
        self.assertIn("runner/messages.cpp:2: docs/troubleshooting.md#output-exist: the page has no anchor 'output-exist'",
                      result.stderr)
        self.assertIn("output-exists", result.stderr)  # the anchors it has, to choose from

    def test_a_heading_inside_a_fence_is_no_anchor(self):
        self.write_source('"docs/troubleshooting.md#not-a-heading-inside-a-fence"')

        result = run_check(self.repo)

        self.assertEqual(result.returncode, 1)
        self.assertIn("no anchor 'not-a-heading-inside-a-fence'", result.stderr)

    def test_a_missing_page_fails(self):
        self.write_source('"see docs/gpus.md#mig"')

        result = run_check(self.repo)

        self.assertEqual(result.returncode, 1)
        self.assertIn("runner/messages.cpp:1: docs/gpus.md#mig: no such page", result.stderr)

    def test_a_generated_page_needs_the_reference_folder(self):
        self.write_source('"docs/reference/cli/run.md#options"')
        reference = self.repo / "generated"
        (reference / "cli").mkdir(parents=True)
        (reference / "cli/run.md").write_text("# shardrun run\n\n## Options\n")

        without = run_check(self.repo)
        with_folder = run_check(self.repo, "--reference-dir", str(reference))

        self.assertEqual(without.returncode, 1)
        self.assertIn("a generated reference page", without.stderr)
        self.assertEqual(with_folder.returncode, 0, with_folder.stderr)

    def test_other_sites_docs_paths_are_not_pointers(self):
        self.write_source('// cloud.google.com/batch/docs/troubleshooting#reserved-exit-codes',
                          '"see docs/troubleshooting.md#output-exists"')

        result = run_check(self.repo)

        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("1 docs pointers", result.stdout)

    def test_no_pointer_at_all_fails(self):
        self.write_source("// no pointer here")

        result = run_check(self.repo)

        self.assertEqual(result.returncode, 1)
        self.assertIn("no docs/<page>.md pointer found", result.stderr)


if __name__ == "__main__":
    unittest.main()

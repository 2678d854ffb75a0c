"""The docs site (issue 39): `scripts/docs OUT` builds it with mkdocs --strict into a temp folder,
with no warning at all, and every page of the nav becomes a page of the site. Then the same build
of a copy of docs/ with one broken link, one broken anchor and one page outside the nav must fail
and name each: a site that builds only because strict checks nothing would pass the first half."""
import os
import pathlib
import re
import shutil
import subprocess
import tempfile
import unittest

REPO = pathlib.Path(os.environ.get("SHARDRUN_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
VENV = pathlib.Path(os.environ.get("SHARDRUN_DOCS_VENV", "/opt/shardrun-docs-venv"))


def nav_pages(mkdocs_yml):
    """Every `*.md` the nav names (`- Title: page.md` or a bare `- page.md`)."""
    return re.findall(r"^\s*- (?:[^:\n]+: )?(\S+\.md)$", mkdocs_yml, re.M)


class DocsSiteTest(unittest.TestCase):
    def setUp(self):
        self.temp = pathlib.Path(tempfile.mkdtemp(prefix="shardrun-docs-"))
        self.addCleanup(shutil.rmtree, self.temp, True)

    def test_the_site_builds_strict_without_a_warning(self):
        out = self.temp / "site"
        proc = subprocess.run([str(REPO / "scripts" / "docs"), str(out)], capture_output=True, text=True, timeout=600)
        log = proc.stdout + proc.stderr
        self.assertEqual(proc.returncode, 0, log)
        self.assertNotRegex(log, r"(?m)^(WARNING|ERROR)", log)
        built = 0
        for page in nav_pages((REPO / "mkdocs.yml").read_text()):
            html = out / (page[: -len(".md")] + "/index.html" if not page.endswith("index.md") else page[: -len(".md")] + ".html")
            self.assertTrue(html.exists(), f"{page}: no {html}")
            built += 1
        self.assertGreaterEqual(built, 50)
        # The generated reference: the job-file table and a page per command.
        self.assertIn("drain_timeout", (out / "reference" / "job-file" / "index.html").read_text())
        self.assertTrue((out / "reference" / "cli" / "run" / "index.html").exists())
        # The search index is how a reader finds "drain_timeout": it holds the job-file page's text.
        self.assertIn("drain_timeout", (out / "search" / "search_index.json").read_text())

    def test_a_broken_link_an_anchor_and_an_orphan_page_fail_the_build(self):
        copy = self.temp / "tree"
        shutil.copytree(REPO / "docs", copy / "docs")
        shutil.copy(REPO / "mkdocs.yml", copy / "mkdocs.yml")
        with open(copy / "docs" / "concepts.md", "a") as f:
            f.write("\nSee [nowhere](no-such-page.md) and [a lost part](job-file.md#no-such-anchor).\n")
        (copy / "docs" / "orphan.md").write_text("# Not in the nav\n")
        proc = subprocess.run([str(VENV / "bin" / "mkdocs"), "build", "--strict", "--site-dir", str(self.temp / "bad")],
                              cwd=copy, capture_output=True, text=True, timeout=600)
        log = proc.stdout + proc.stderr
        self.assertNotEqual(proc.returncode, 0, log)
        self.assertIn("no-such-page.md", log)
        self.assertIn("#no-such-anchor", log)
        self.assertIn("orphan.md", log)


if __name__ == "__main__":
    unittest.main(verbosity=2)

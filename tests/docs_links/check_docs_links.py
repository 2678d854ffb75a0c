#!/usr/bin/env python3
"""Fails on a docs pointer in the sources that names a page or an anchor the docs do not have.

Messages and help texts point users at the site as `docs/<page>.md#<anchor>` (the docs site
contract: a repository path that maps 1:1 to a site page). This collects every such pointer
in the product and script sources and checks, for each, that docs/<page>.md exists and that
it has the anchor: an explicit `{#anchor}` (attr_list, e.g. `## Disk full {#disk-full}`), an
HTML `id="anchor"`, or a heading's slug as MkDocs' toc extension makes it (lower case, `-`
between words, punctuation dropped, `_1`, `_2` for repeats).

Pages under docs/reference/ are generated at docs-build time (scripts/docs-reference) and not
committed: a pointer into them is checked against REFERENCE_DIR (--reference-dir), or fails
when none is given, since nothing else can say the page will exist.

Usage: check_docs_links.py [REPO] [--reference-dir DIR]
Exit 0: every pointer resolves (and at least one was found); 1: a broken pointer, each on one
line as `source:line: docs/page.md#anchor: what is wrong`. Reads only text.
"""

import argparse
import pathlib
import re
import sys
import unicodedata

# Where messages, help texts and scripts live (not tests/: a test may name a broken pointer on purpose).
SOURCE_FOLDERS = ("base", "kernels", "collectives", "io", "runner", "scripts")
SOURCE_SUFFIXES = {".hpp", ".cpp", ".h", ".cu", ".cuh", ".in", ".py", ".sh", ""}
# `docs/` not preceded by a path or URL character: cloud.google.com/batch/docs/... is not ours.
POINTER = re.compile(r"(?<![\w./-])docs/((?:[\w-]+/)*[\w-]+\.md)(?:#([\w-]+))?")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
ATTR_ID = re.compile(r"\{[^}]*#([\w-]+)[^}]*\}\s*$")
HTML_ID = re.compile(r"""\bid\s*=\s*["']([\w-]+)["']""")
FENCE = re.compile(r"^\s*(```|~~~)")


def slugify(text):
    """Python-Markdown's toc slugify (the one MkDocs uses) of a heading's text."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link reads as its text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.replace("`", "").replace("*", "")
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors_of(page):
    """Every anchor a reader can link to on `page` (a Markdown file)."""
    anchors, seen, fenced = set(), {}, False
    for line in page.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        anchors.update(HTML_ID.findall(line))
        heading = HEADING.match(line)
        if not heading:
            continue
        text = heading.group(2)
        explicit = ATTR_ID.search(text)
        if explicit:
            anchors.add(explicit.group(1))
            continue
        slug = slugify(text)
        # toc makes a repeated slug unique with _1, _2, ...
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}_{count}")
    return anchors


def source_files(repo):
    for folder in SOURCE_FOLDERS:
        for path in sorted((repo / folder).rglob("*")):
            if path.is_file() and path.suffix in SOURCE_SUFFIXES:
                yield path


def pointers(repo):
    """(source path, line number, page, anchor or None) for every docs pointer in the sources."""
    for path in source_files(repo):
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # a binary file (an image, a bundle) says nothing to users
        for number, line in enumerate(text.splitlines(), 1):
            for match in POINTER.finditer(line):
                yield path.relative_to(repo), number, match.group(1), match.group(2)


def page_path(repo, reference_dir, page):
    if page.startswith("reference/"):
        return reference_dir / page[len("reference/"):] if reference_dir else None
    return repo / "docs" / page


def problems(repo, reference_dir):
    """One line per broken pointer, and how many pointers were checked."""
    found, checked, cache = [], 0, {}
    for source, number, page, anchor in pointers(repo):
        checked += 1
        where = f"{source}:{number}: docs/{page}" + (f"#{anchor}" if anchor else "")
        path = page_path(repo, reference_dir, page)
        if path is None:
            found.append(f"{where}: a generated reference page; give --reference-dir (scripts/docs-reference writes it)")
            continue
        if not path.is_file():
            found.append(f"{where}: no such page ({path})")
            continue
        if anchor is None:
            continue
        if path not in cache:
            cache[path] = anchors_of(path)
        if anchor not in cache[path]:
            near = sorted(cache[path])
            found.append(f"{where}: the page has no anchor '{anchor}' (it has: {', '.join(near) or 'none'})")
    return found, checked


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", nargs="?", default=pathlib.Path(__file__).resolve().parents[2], type=pathlib.Path)
    parser.add_argument("--reference-dir", type=pathlib.Path, help="where scripts/docs-reference wrote the generated pages")
    args = parser.parse_args()
    found, checked = problems(args.repo.resolve(), args.reference_dir)
    for line in found:
        print(line, file=sys.stderr)
    if checked == 0:
        # A check that found nothing to check must not read as a pass.
        print(f"no docs/<page>.md pointer found under {', '.join(SOURCE_FOLDERS)} of {args.repo}", file=sys.stderr)
        return 1
    if found:
        return 1
    print(f"{checked} docs pointers in the sources, each to a page and anchor that exist")
    return 0


if __name__ == "__main__":
    sys.exit(main())

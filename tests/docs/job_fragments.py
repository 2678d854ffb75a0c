"""Checks a page's job-file fragments: each ```yaml block without a title (a few keys shown inside a larger
job) is merged into a minimal job that the page's test gives, written to the reader's folder and passed
through `shardrun plan` there, which must exit 0. tests/docs/README.md says the same for authors.

A `<!-- docs-test: ... -->` comment on the line before the fence changes that:
- `<!-- docs-test: exits 2 -->`: the fragment is deliberately wrong; `plan` must exit 2 (one line);
- `<!-- docs-test: not a job: WHY -->`: the block is no job's part (e.g. every key at once, with
  alternatives side by side), so it is not planned; WHY says what checks it instead.
- `<!-- docs-test: base NAME -->`: merge it into the test's base job NAME instead of the first one (a
  fragment of an exec job's `exec:` keys needs `task: exec`)."""
import os
import re

import yaml

NOT_A_JOB = "not a job"


class _Yaml12Loader(yaml.SafeLoader):
    """PyYAML's safe loader, but with YAML 1.2's booleans (true/false only), as yaml-cpp reads a job:
    YAML 1.1 would read notify's `on:` key as the boolean True."""


_Yaml12Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
_Yaml12Loader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                                    list("tTfF"))


def fragments(steps):
    """The page's untitled ```yaml blocks (shown-only steps), in order."""
    return [s for s in steps if s.kind == "shown" and s.path in ("yaml", "yml")]


def _merged(base, fragment):
    """`fragment`'s keys over `base`'s; a mapping both have is merged key by key."""
    merged = dict(base)
    for key, value in fragment.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merged(merged[key], value)
        else:
            merged[key] = value
    return merged


def check(test, session, steps, bases):
    """Plans every fragment of `steps` merged into a base job of `bases` (name -> dict; the first is the
    default) in `session`'s folder; returns the page lines of the fragments planned. A fragment whose note
    says it is not a job is left out; one that says `exits 2` must be refused."""
    planned = []
    default = next(iter(bases))
    for step in fragments(steps):
        note = step.note or ""
        if note.startswith(NOT_A_JOB):
            continue
        base = bases[note.split()[1]] if note.startswith("base ") else bases[default]
        fragment = yaml.load(step.text, Loader=_Yaml12Loader)
        test.assertIsInstance(fragment, dict, f"page line {step.line}: a fragment is a mapping of job keys")
        job = os.path.join(session.cwd, f"fragment-{step.line}.yaml")
        with open(job, "w") as f:
            yaml.safe_dump(_merged(base, fragment), f, sort_keys=False)
        code, printed = session.command(f"shardrun plan {os.path.basename(job)}")
        want = 2 if note.startswith("exits 2") else 0
        test.assertEqual(code, want, f"page line {step.line}: the fragment merged into {base} gave `plan` exit "
                         f"{code}:\n" + "\n".join(printed) + f"\n--- the fragment:\n{step.text}")
        if want == 2:
            test.assertEqual(len([line for line in printed if line.strip()]), 1, "\n".join(printed))
        planned.append(step.line)
    return planned

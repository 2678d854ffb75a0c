"""The Results page's recipes (docs/results.md: the `>>>` lines of its h5py and xarray snippets, once
README's Results section), run as they are
written on a real output of each layout, with the task ids they show checked against h5py
(issue 24, point 6: a single-group open once showed positions 0..n-1 as task ids)."""
import os
import re
import unittest

from xarray_check import ensure_xarray

ensure_xarray()

import h5py  # noqa: E402
import numpy as np  # noqa: E402

from harness import SOURCE_DIR, scratch_dir  # noqa: E402
import xarray_results_test as examples  # noqa: E402

PAGE_PATH = "results/heat-sweep.h5"


def results_recipe_lines():
    """Every `>>>` line of docs/results.md about the file itself (its sections before "Extending a
    sweep": the layout's h5py lines and the xarray ones), in order."""
    with open(os.path.join(SOURCE_DIR, "docs", "results.md"), encoding="utf-8") as page:
        text = page.read()
    section = text[text.index("# Results\n"):]
    section = section[:section.index("\n## Extending a sweep\n")]
    return [match.group(1) for match in re.finditer(r"^    >>> (.*)$", section, re.MULTILINE)]


def run_recipe(lines, output):
    """Runs each line in one namespace, the path replaced by `output`; returns the namespace and
    the value of each line that is an expression (what the interpreter would print), by line."""
    namespace, shown = {}, {}
    for line in lines:
        code = line.replace(PAGE_PATH, output)
        try:
            shown[line] = eval(compile(code, "docs/results.md", "eval"), namespace)  # noqa: S307 (the page's own text)
        except SyntaxError:
            exec(compile(code, "docs/results.md", "exec"), namespace)  # noqa: S102
    return namespace, shown


def line_with(lines, fragment):
    found = [line for line in lines if fragment in line]
    if len(found) != 1:
        raise AssertionError(f"docs/results.md (before Extending a sweep) has {len(found)} recipe lines with {fragment!r}, not 1")
    return found[0]


class ReadmeResultsRecipes(unittest.TestCase):
    def check_recipes(self, output, tasks):
        lines = results_recipe_lines()

        namespace, shown = run_recipe(lines, output)

        with h5py.File(output, "r") as f:
            heat = f["results/total_heat"][:]
            alpha = f["params/alpha"][:]
            status = f["tasks/status"][:]
        shape, _, complete = shown[line_with(lines, 'f["results/total_heat"].shape')]
        self.assertEqual((shape, complete), ((tasks,), True))
        for group in ("results", "params", "tasks"):
            self.assertIn("task", namespace[group].coords, group)
            self.assertEqual(namespace[group]["task"].values.tolist(), list(range(tasks)), group)
        # The ids shown are the rows of the 3 largest total_heat in h5py (ties in any order),
        # and each id's own alpha: positions 0..2 of the sorted view would fail both.
        ids, alphas = shown[line_with(lines, "top.task.values")]
        np.testing.assert_array_equal(heat[ids], np.sort(heat)[::-1][:3])
        np.testing.assert_array_equal(namespace["top"]["total_heat"].values, heat[ids])
        np.testing.assert_array_equal(alphas, alpha[ids])
        want = ids
        rows = shown[line_with(lines, "tasks.status.sel(task=top.task)")]
        self.assertEqual(rows.task.values.tolist(), want.tolist())
        self.assertEqual(rows.values.tolist(), status[want].tolist())
        self.assertEqual(namespace["tree"]["results"]["task"].values.tolist(), list(range(tasks)))

    def test_shards_layout(self):
        output = os.path.join(scratch_dir(), "recipes.h5")
        examples.run_example(self, "heat-sweep", output)

        self.check_recipes(output, 9)

    def test_single_layout(self):
        output = os.path.join(scratch_dir(), "recipes-single.h5")
        examples.run_example(self, "heat-sweep", output, ["--set", "output.layout=single"])

        self.check_recipes(output, 9)


if __name__ == "__main__":
    unittest.main()

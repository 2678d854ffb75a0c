"""`shardrun kinds [NAME]`: the task kinds and their parameter tables, and that a job written
with every literal default of a table passes the kind's own checks (`shardrun plan`)."""
import json
import os
import re
import unittest

from harness import run, scratch_dir

# The kinds the build found on disk (runner/tasks/<name>_kind.cpp) in the table's order
# (cmake/ShardrunEntries.cmake), as tests/cli/CMakeLists.txt passes them: a new kind needs no edit here.
BUILT_IN = os.environ["SHARDRUN_TEST_KIND_NAMES"].split(",")


def table_rows(kind):
    """{name: (type, default, allowed)} from `shardrun kinds KIND`."""
    proc = run(["kinds", kind])
    if proc.returncode != 0:
        raise AssertionError(proc.stderr)
    lines = proc.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("name "))
    rows = {}
    for line in lines[header + 1:]:
        cells = re.split(r"\s{2,}", line.strip())
        rows[cells[0]] = tuple(cells[1:4])
    return rows


class KindsTest(unittest.TestCase):
    def test_lists_every_kind_with_one_line(self):
        proc = run(["kinds"])

        self.assertEqual(proc.returncode, 0, proc.stderr)
        listed = [line.split()[0] for line in proc.stdout.splitlines() if line and not line.startswith("'")]
        self.assertEqual(listed, BUILT_IN)
        self.assertEqual(proc.stderr, "")

    def test_gemm_table_has_types_defaults_and_ranges(self):
        rows = table_rows("gemm")

        self.assertEqual(list(rows), ["n", "m", "k", "repeats", "dtype", "seed", "device"])
        self.assertEqual(rows["n"], ("integer", "512", "> 0"))
        self.assertEqual(rows["m"][1], "n")
        self.assertEqual(rows["dtype"], ("choice", "float32", "float32 | float64"))
        self.assertEqual(rows["device"], ("choice", "auto", "auto | cpu | cuda"))  # per task (issue 11, point 11)

    def test_train_ranges_are_shown_as_intervals(self):
        rows = table_rows("train")

        self.assertEqual(rows["lr"], ("number", "0.05", "in (0, 10]"))
        self.assertEqual(rows["momentum"][2], "in [0, 1)")

    def test_open_kinds_say_they_take_any_name(self):
        for kind in ("exec", "noop"):
            proc = run(["kinds", kind])

            self.assertEqual(proc.returncode, 0, proc.stderr)
            self.assertIn("takes any parameter names", proc.stdout)

    def test_unknown_kind_is_a_usage_error_with_a_suggestion(self):
        proc = run(["kinds", "heat"])

        self.assertEqual(proc.returncode, 2)
        self.assertIn("shardrun: kinds: 'heat' is not a task kind (did you mean 'heat2d'?)", proc.stderr)
        self.assertEqual(proc.stdout, "")

    def test_every_literal_default_passes_the_kinds_own_checks(self):
        work = scratch_dir()
        # Every kind with a parameter table, as `shardrun kinds` lists them (not a list kept here).
        listed = [line.split()[0] for line in run(["kinds"]).stdout.splitlines() if line and not line.startswith("'")]
        tabled = [kind for kind in listed if "takes any parameter names" not in run(["kinds", kind]).stdout]
        self.assertGreaterEqual(len(tabled), 6, listed)
        for kind in tabled:
            params = {}
            for name, (kind_type, default, _) in table_rows(kind).items():
                if kind_type == "choice":
                    params[name] = default
                elif re.fullmatch(r"-?\d+(\.\d+)?", default):
                    params[name] = float(default) if kind_type == "number" else int(default)
            job = os.path.join(work, f"{kind}.yaml")
            with open(job, "w") as f:
                json.dump({"task": kind, "params": params, "output": {"path": f"{kind}.h5"}}, f)

            proc = run(["plan", job], cwd=work)

            self.assertEqual(proc.returncode, 0, f"{kind} {params}: {proc.stderr}")
            # At least one of the kind's own besides device (a kernel's): the table was read. A kind
            # that is no kernel has no device, and one parameter is fine (trial 41a's `cubes`).
            self.assertGreaterEqual(len(set(params) - {"device"}), 1, kind)
        self.assertEqual(sorted(os.listdir(work)), sorted(f"{k}.yaml" for k in tabled))

    def test_docs_kernel_table_gives_the_defaults_the_kinds_print(self):
        # The "Built-in kernels" table of docs/kernels.md is the defaults' one copy outside the kinds'
        # own tables (runner/tasks/*_kind.cpp, typed): held to `shardrun kinds NAME` here.
        with open(os.path.join(os.environ["SHARDRUN_SOURCE_DIR"], "docs", "kernels.md")) as f:
            page = f.read()
        start = page.index("\n## Built-in kernels")
        section = page[start:page.index("\n## ", start + 1)]
        rows = re.findall(r"^\| `(\w+)` +\| (.+?) +\|", section, re.M)
        self.assertGreaterEqual(len(rows), 5, "no rows found in docs/kernels.md's Built-in kernels table")
        for kind, cell in rows:
            table = table_rows(kind)
            shown = dict(re.findall(r"(\w+) \(([^)]*)\)", cell))
            for name, (kind_type, default, allowed) in table.items():
                if name == "device":
                    continue  # every kind's, documented once in "Device per task"
                self.assertIn(name, shown, f"docs/kernels.md's Built-in kernels row of {kind} lacks {name}")
                if kind_type == "choice":
                    self.assertEqual(shown[name].replace("\\|", "|").replace(" ", ""), allowed.replace(" ", ""),
                                     f"{kind}.{name}")
                elif re.fullmatch(r"-?\d+(\.\d+)?", default):
                    self.assertEqual(float(shown[name]), float(default), f"{kind}.{name}: docs/kernels.md vs shardrun kinds")


if __name__ == "__main__":
    unittest.main()

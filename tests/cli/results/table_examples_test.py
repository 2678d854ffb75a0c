"""Every quick example (the shrunk runs of xarray_results_test) printed by `shardrun table --csv`
and read back with pandas (issue 11, "Done when"): one row per task, the params and scalar
results exactly as h5py reads them, status ok. Runs under /opt/shardrun-pyenv's python, which
has pandas (scripts/install-deps)."""
import io
import math
import unittest

from xarray_check import ensure_xarray

ensure_xarray()  # re-executes this script under the venv's python, which also has pandas

import h5py  # noqa: E402
import pandas as pd  # noqa: E402

from harness import run, scratch_dir  # noqa: E402
from xarray_results_test import EXAMPLES, run_example  # noqa: E402


def expected_columns(f):
    """task, /params and scalar /results in the job's order, status: what `table` promises."""
    # /params/task is the group's own task coordinate (README "Results"), the table's first column;
    # /params's column_order is the job's sweep order (issue 35, point 11).
    params = [str(n) for n in f["params"].attrs.get("column_order", [])] if "params" in f else []
    if "params" in f:
        by_name = sorted(n for n in f["params"] if n != "task")
        assert sorted(params) == by_name, (params, by_name)
    fields = [str(n) for n in f.attrs["fields"]]
    scalars = [n for n in fields if f["results"][n].ndim == 1]
    return ["task", *params, *scalars, "status"], params, scalars


def same(got, want):
    """Equal, NaN equal to NaN."""
    if isinstance(want, float) and math.isnan(want):
        return isinstance(got, float) and math.isnan(got)
    return got == want


class TableCsvOfEveryExample(unittest.TestCase):
    def test_every_quick_example(self):
        work = scratch_dir()
        for name in EXAMPLES:
            with self.subTest(example=name):
                output = f"{work}/{name}.h5"
                run_example(self, name, output)

                proc = run(["table", output, "--csv"])

                self.assertEqual(proc.returncode, 0, proc.stderr)
                # pandas' default float parser (xstrtod) is off by up to ~1e-12 relative (measured: 8.6e-13 on
                # 0.00010092254655218636); its round_trip parser reads the shortest exact form bit for bit.
                frame = pd.read_csv(io.StringIO(proc.stdout), float_precision="round_trip")
                plain = pd.read_csv(io.StringIO(proc.stdout))
                self.assertEqual(list(plain.columns), list(frame.columns))
                for column in frame.columns:
                    if frame[column].dtype.kind == "f":
                        self.assertTrue(all(math.isclose(a, b, rel_tol=1e-11) or a == b or (a != a and b != b)
                                            for a, b in zip(plain[column], frame[column])), column)
                    else:
                        self.assertEqual(plain[column].tolist(), frame[column].tolist(), column)
                with h5py.File(output, "r") as f:
                    columns, params, scalars = expected_columns(f)
                    self.assertEqual(list(frame.columns), columns)
                    self.assertEqual(frame["task"].tolist(), list(range(len(f["tasks/status"]))))
                    self.assertEqual(set(frame["status"]), {"ok"})
                    for column in params + scalars:
                        data = f["params" if column in params else "results"][column]
                        if data.dtype.kind == "O":
                            want, got = data.asstr()[:].tolist(), [str(v) for v in frame[column]]
                        else:
                            # float32 is printed as float32's shortest form: compare in the stored type.
                            want = data[:].tolist()
                            got = [data.dtype.type(v).item() for v in frame[column]]
                        self.assertTrue(all(same(g, w) for g, w in zip(got, want)), f"{name}.{column}: {got} != {want}")


if __name__ == "__main__":
    unittest.main()

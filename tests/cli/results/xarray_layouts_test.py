"""Both layouts, a resumed single file and a merged array job give the same netCDF-4 file:
xarray (open_dataset per group, open_datatree), h5py and ncdump read it (issue 11, point 1)."""
import os
import unittest

from xarray_check import check_results_file, ensure_xarray

ensure_xarray()

import h5py  # noqa: E402

from harness import run, scratch_dir  # noqa: E402
import xarray_results_test as examples  # noqa: E402


class LayoutsAndMergeOpenWithXarray(unittest.TestCase):
    def test_single_layout(self):
        output = os.path.join(scratch_dir(), "single.h5")
        examples.run_example(self, "heat-sweep", output, ["--set", "output.layout=single"])
        check_results_file(self, output, 9)
        with h5py.File(output, "r") as f:
            self.assertEqual(f.attrs["layout"], "single")

    def test_single_layout_resumed_after_it_finished(self):
        output = os.path.join(scratch_dir(), "single.h5")
        examples.run_example(self, "heat-sweep", output, ["--set", "output.layout=single"])
        examples.run_example(self, "heat-sweep", output, ["--set", "output.layout=single", "--resume"])
        check_results_file(self, output, 9)

    def test_merged_array_job(self):
        output = os.path.join(scratch_dir(), "merged.h5")
        for index in (0, 1):
            examples.run_example(self, "heat-sweep", output, ["--array-index", str(index), "--array-count", "2"])
        proc = run(["merge", output])
        self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
        check_results_file(self, output, 9)
        with h5py.File(output, "r") as f:
            self.assertEqual(f["tasks/status"][:].tolist(), [1] * 9)
            self.assertEqual(f.attrs["array_index"], -1)


if __name__ == "__main__":
    unittest.main()

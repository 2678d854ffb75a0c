"""`shardrun report`: a PNG (and an HTML page) drawn from a finished run's /tasks, and one-line
exit 2 for a missing file, a file that is not HDF5 and an HDF5 file that is not a results file."""
import os
import unittest

from harness import run, scratch_dir
from jobs import h5py_module, write_job

h5py = h5py_module()


def finished_run(work):
    """40 exec tasks at 2 ranks: n % 11 == 3 fails (exit 7) after its retry, n % 7 == 2 fails only its first attempt."""
    script = ("sleep 0.0$(( {n} % 5 + 1 )); [ $(( {n} % 11 )) = 3 ] && exit 7; "
              "[ $(( {n} % 7 )) = 2 ] && [ {attempt} = 1 ] && exit 1; echo '{{\"v\": {n}}}' > $SHARDRUN_RESULT")
    job = write_job(work, f"""
        name: report-demo
        task: exec
        sweep: {{n: {{range: [0, 40, 1]}}}}
        retries: 1
        output: {{path: {work}/r.h5}}
        exec:
          argv: [sh, -c, "{script.replace('"', chr(92) + '"')}"]
          results: {{v: float64}}
        """)
    proc = run(["run", job, "-q"], np=2)
    assert proc.returncode == 1, proc.stderr  # some tasks failed, as intended
    return f"{work}/r.h5"


class ReportTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = scratch_dir()
        cls.results = finished_run(cls.work)

    def test_png_and_html_of_a_finished_run(self):
        png, page = f"{self.work}/run.png", f"{self.work}/run.html"

        proc = run(["report", self.results, "--png", png, "--html", page])

        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertIn(png, proc.stdout)
        import matplotlib.image
        image = matplotlib.image.imread(png)
        height, width = image.shape[:2]
        self.assertGreaterEqual(width, 1000)
        self.assertGreaterEqual(height, 600)
        self.assertGreater(os.path.getsize(png), 30_000)
        colours = {tuple(pixel) for pixel in (image[::3, ::3, :3] * 255).astype("uint8").reshape(-1, 3).tolist()}
        self.assertGreater(len(colours), 50)  # bars, hatching, text: far from one colour
        with open(page) as f:
            text = f.read()
        self.assertIn("data:image/png;base64,", text)
        self.assertIn("report-demo", text)
        self.assertIn("Failed tasks (4)", text)  # n = 3, 14, 25, 36

    def test_default_png_lands_next_to_the_results(self):
        proc = run(["report", self.results])

        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertTrue(os.path.getsize(f"{self.work}/r.report.png") > 30_000)

    def test_bad_input_is_one_line_and_exit_2(self):
        not_hdf5 = write_job(self.work, "just text\n", name="notes.h5")
        other = f"{self.work}/other.h5"
        with h5py.File(other, "w") as f:
            f["x"] = [1, 2, 3]
        cases = {f"{self.work}/missing.h5": "no such file", not_hdf5: "not an HDF5 file",
                 other: "not a shardrun results file"}
        for path, words in cases.items():
            with self.subTest(path=path):
                proc = run(["report", path])

                self.assertEqual(proc.returncode, 2, proc.stderr)
                self.assertEqual(len(proc.stderr.strip().splitlines()), 1, proc.stderr)
                self.assertIn(words, proc.stderr)


if __name__ == "__main__":
    unittest.main()

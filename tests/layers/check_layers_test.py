#!/usr/bin/env python3
"""The layering check against the tree, and against copies of it with a forbidden include added.

Each case copies the product folders and the three files that hold the maps (docs/developing/layout.md,
runner/README.md, io/README.md) into a temp folder,
breaks one rule, and expects exit 1 with the file and line of the breach (or the map line).
"""

import pathlib
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
CHECK = HERE / "check_layers.py"
PRODUCT = ("base", "kernels", "collectives", "io", "runner")


def run_check(repo):
    return subprocess.run([sys.executable, str(CHECK), str(repo)], capture_output=True, text=True, timeout=60)


class LayerMapsTest(unittest.TestCase):
    def setUp(self):
        self.temp = tempfile.TemporaryDirectory(prefix="check-layers-")
        self.copy = pathlib.Path(self.temp.name)
        for folder in PRODUCT:
            shutil.copytree(REPO / folder, self.copy / folder)
        (self.copy / "docs" / "developing").mkdir(parents=True)
        shutil.copy(REPO / "docs" / "developing" / "layout.md", self.copy / "docs" / "developing" / "layout.md")

    def tearDown(self):
        self.temp.cleanup()

    def add_include(self, path, header):
        """Appends the include as the file's last line; returns that line's number."""
        file = self.copy / path
        lines = file.read_text().splitlines()
        lines.append(f'#include "{header}"')
        file.write_text("\n".join(lines) + "\n")
        return len(lines)

    def assert_breach(self, result, *needles):
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        for needle in needles:
            self.assertIn(needle, result.stderr)

    def test_the_tree_keeps_its_maps(self):
        result = run_check(REPO)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("keeps the layer maps", result.stdout)

    def test_a_lower_layer_including_the_runner_fails(self):
        line = self.add_include("io/errors.hpp", "runner/errors.hpp")
        self.assert_breach(run_check(self.copy), f"io/errors.hpp:{line}: includes runner/errors.hpp", "layers top")

    def test_peers_on_one_floor_fail(self):
        kernel_header = sorted((self.copy / "kernels").rglob("*.hpp"))[0].relative_to(self.copy).as_posix()
        line = self.add_include(kernel_header, "collectives/communicator.hpp")
        self.assert_breach(run_check(self.copy), f"{kernel_header}:{line}: includes collectives/communicator.hpp",
                           "shares its floor")

    def test_a_runner_room_including_one_above_it_fails(self):
        line = self.add_include("runner/process/process.cpp", "runner/run/loop/rank_loop.hpp")
        self.assert_breach(run_check(self.copy), f"runner/process/process.cpp:{line}: includes runner/run/loop/rank_loop.hpp",
                           "room runner/run/loop/ is above it", "layers runner")

    def test_a_folder_missing_from_a_map_fails(self):
        (self.copy / "runner/newroom").mkdir()
        (self.copy / "runner/newroom/thing.hpp").write_text("#pragma once\n")
        self.assert_breach(run_check(self.copy), "runner/newroom/thing.hpp: in no room of the `layers runner` map")

    def test_a_paid_debt_fails(self):
        readme = self.copy / "runner/README.md"
        readme.write_text(readme.read_text() + "\n```layers-debt runner\nrunner/job/job_spec.hpp -> runner/cli/command.hpp\n```\n")
        self.assert_breach(run_check(self.copy), "debt runner/job/job_spec.hpp -> runner/cli/command.hpp is paid")

    def test_a_listed_debt_is_allowed(self):
        self.add_include("runner/job/job_spec.hpp", "runner/cli/command.hpp")
        readme = self.copy / "runner/README.md"
        readme.write_text(readme.read_text() + "\n```layers-debt runner\nrunner/job/job_spec.hpp -> runner/cli/command.hpp\n```\n")
        result = run_check(self.copy)
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_a_room_that_does_not_exist_is_a_bad_map(self):
        readme = self.copy / "docs" / "developing" / "layout.md"
        readme.write_text(readme.read_text().replace("runner/\n```", "runner/\nnowhere/\n```", 1))
        result = run_check(self.copy)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("room nowhere/ does not exist", result.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)

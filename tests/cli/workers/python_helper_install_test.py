"""Issue 37, point 6: `pip install ./scripts/python` into a fresh venv installs the helper and leaves
the checkout as it was: no build/, no *.egg-info in scripts/python, not even ignored ones (git
status --ignored sees those a .gitignore would hide)."""
import os
import subprocess
import unittest

from harness import SOURCE_DIR, scratch_dir

PACKAGE = os.path.join(SOURCE_DIR, "scripts", "python")


def left_in_checkout():
    """What git sees under scripts/python beyond the tracked files (untracked or ignored), minus bytecode."""
    status = subprocess.run(["git", "-C", SOURCE_DIR, "status", "--porcelain", "--ignored", "--untracked-files=all",
                             "--", "scripts/python"], capture_output=True, text=True, check=True).stdout
    return [line for line in status.splitlines() if line.strip() and "__pycache__" not in line]


class HelperInstallTest(unittest.TestCase):
    def test_pip_install_leaves_the_checkout_clean(self):
        if subprocess.run(["git", "-C", SOURCE_DIR, "rev-parse"], capture_output=True).returncode != 0:
            self.skipTest(f"{SOURCE_DIR} is not a git checkout: nothing to compare against (NOT tested)")
        before = left_in_checkout()
        self.assertEqual([line for line in before if "build" in line or "egg-info" in line], [],
                         "an earlier install left these in the checkout")
        venv = os.path.join(scratch_dir(self), "venv")
        subprocess.run(["/usr/bin/python3", "-m", "venv", venv], check=True, capture_output=True)
        python = os.path.join(venv, "bin", "python")
        pip = subprocess.run([python, "-m", "pip", "install", "-q", PACKAGE], capture_output=True, text=True)
        self.assertEqual(pip.returncode, 0, pip.stderr[-2000:])
        self.assertEqual(left_in_checkout(), before, "pip install wrote into the checkout")
        # Installed, and importable from outside the checkout with the whole API.
        probe = subprocess.run([python, "-c", "import shardrun; print(shardrun.__file__); "
                                "print(sorted(n for n in ('task', 'checkpoint_dir', 'params', 'result', 'tasks') "
                                "if callable(getattr(shardrun, n))))"],
                               capture_output=True, text=True, cwd=venv)
        self.assertEqual(probe.returncode, 0, probe.stderr)
        where, names = probe.stdout.splitlines()
        self.assertTrue(where.startswith(venv), where)
        self.assertEqual(names, "['checkpoint_dir', 'params', 'result', 'task', 'tasks']")


if __name__ == "__main__":
    unittest.main()

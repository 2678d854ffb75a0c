"""What the page tests share (the tutorials' and the other pages' under docs/): the page's path and a
reader's terminal (page_snippets.Session) set up as the page's "What you need" leaves a reader: shardrun
and mpirun on PATH, a Python with h5py, xarray, h5netcdf, pandas and pyarrow first on PATH (the venv
scripts/install-deps makes, SHARDRUN_PYENV), and the checkout's `shardrun` Python package importable
(what `pip install ./scripts/python` gives)."""
import os
import sys

import page_snippets
from harness import MPIEXEC, SHARDRUN, SOURCE_DIR, clean_env, scratch_dir  # noqa: F401 (scratch_dir: for the tests)

PYENV = os.environ.get("SHARDRUN_PYENV", "/opt/shardrun-pyenv")
SKIP = 77  # ctest SKIP_RETURN_CODE


def page(name):
    """The steps of docs/tutorials/<name>.md."""
    return page_snippets.load(os.path.join(SOURCE_DIR, "docs", "tutorials", name + ".md"))


def docs_page(path):
    """The steps of docs/<path> (a page outside the tutorials: "getting-started.md")."""
    return page_snippets.load(os.path.join(SOURCE_DIR, "docs", path))


def clone(folder):
    """Makes `folder` look like a built checkout to the page's commands, without writing into the real one:
    `build/shardrun` (a link to the binary under test) and links to the checkout's `examples/` and
    `scripts/`. Outputs go where the reader runs, as the pages say."""
    os.makedirs(os.path.join(folder, "build"), exist_ok=True)
    os.symlink(SHARDRUN, os.path.join(folder, "build", "shardrun"))
    for name in ("examples", "scripts"):
        os.symlink(os.path.join(SOURCE_DIR, name), os.path.join(folder, name))
    return folder


def require_pyenv():
    """Exits 77 with the reason when the reader's Python is not installed here."""
    python = os.path.join(PYENV, "bin", "python3")
    if not os.access(python, os.X_OK):
        print(f"SKIPPED: {python} is missing (scripts/install-deps makes the venv with xarray, pandas, pyarrow)")
        sys.exit(SKIP)


def reader(test, extra_env=None):
    """A fresh reader's terminal in a scratch folder, closed (its processes killed) when `test` ends."""
    work = scratch_dir(test)
    env = page_snippets.reader_env(os.path.join(work, "bin"), SHARDRUN, MPIEXEC, os.path.join(PYENV, "bin"),
                                   base=clean_env())
    env["PYTHONPATH"] = os.path.join(SOURCE_DIR, "scripts", "python")
    env["HOME"] = os.path.join(work, "home")
    os.makedirs(env["HOME"])
    # What shardrun keeps in TMPDIR (a bucket output's mirror, a bucket input's copy, `run --task`'s
    # output) stays in the test's folder and goes with it, not in /tmp after the test.
    env["TMPDIR"] = os.path.join(work, "tmp")
    os.makedirs(env["TMPDIR"])
    env.update(extra_env or {})
    folder = os.path.join(work, "reader")
    os.makedirs(folder)
    session = page_snippets.Session(env, folder=folder)
    test.addCleanup(session.close)
    return session

"""Writes job files for the end-to-end tests."""
import os
import textwrap


def write_job(directory, text, name="job.yaml"):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(textwrap.dedent(text))
    return path


def h5py_module():
    import h5py  # /usr/bin/python3 has Debian's python3-h5py
    return h5py


def task_labels(f, name):
    """/tasks/host or /tasks/device of an open results file as str, one per task: int32 codes
    looked up in the label coordinate their `labels` attribute names (io/README.md)."""
    column = f["tasks"][name]
    labels = f["tasks"][column.attrs["labels"]].asstr()[:]
    return [str(label) for label in labels[column[:]]]

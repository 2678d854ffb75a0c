"""The package's PEP 517 backend: setuptools' own, run in a copy of this folder.

pip builds a local folder in place, and setuptools writes build/ and shardrun.egg-info/ where it
builds (also for the metadata and build-requirement hooks, which run egg_info): in a copy, the
checkout stays as it was. Every path pip hands a hook is absolute, so the hooks run unchanged.
"""
import os
import shutil
import tempfile

from setuptools import build_meta as _setuptools

_HERE = os.path.dirname(os.path.abspath(__file__))


def _in_copy(hook, *args):
    with tempfile.TemporaryDirectory(prefix="shardrun-build-") as scratch:
        tree = os.path.join(scratch, "python")
        shutil.copytree(_HERE, tree, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
        cwd = os.getcwd()
        os.chdir(tree)
        try:
            return hook(*args)
        finally:
            os.chdir(cwd)


def get_requires_for_build_wheel(config_settings=None):
    return _in_copy(_setuptools.get_requires_for_build_wheel, config_settings)


def get_requires_for_build_sdist(config_settings=None):
    return _in_copy(_setuptools.get_requires_for_build_sdist, config_settings)


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _in_copy(_setuptools.prepare_metadata_for_build_wheel, os.path.abspath(metadata_directory), config_settings)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    metadata = os.path.abspath(metadata_directory) if metadata_directory else None
    return _in_copy(_setuptools.build_wheel, os.path.abspath(wheel_directory), config_settings, metadata)


def build_sdist(sdist_directory, config_settings=None):
    return _in_copy(_setuptools.build_sdist, os.path.abspath(sdist_directory), config_settings)

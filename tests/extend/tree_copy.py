"""What the throwaway tests share: a copy of the tree under the build folder, configured as the
tree's own build is (compilers, build type, sanitizers, CUDA and its architectures), so that ccache,
when installed, reuses the tree's objects and only the new files compile."""
import os
import shutil
import subprocess
import time

CMAKE = shutil.which("cmake") or "cmake"


def check_call(args, log, **kwargs):
    started = time.monotonic()
    proc = subprocess.run(args, capture_output=True, text=True, **kwargs)
    log.append(f"{time.monotonic() - started:6.1f} s  {' '.join(args[:4])}")
    if proc.returncode != 0:
        raise AssertionError(f"{' '.join(args)} exited {proc.returncode}:\n{proc.stdout[-6000:]}\n{proc.stderr[-6000:]}")
    return proc


def source_files(source_dir):
    """The tree's files as git lists them (tracked, and untracked ones git does not ignore), or
    everything but build folders and .git when the tree is not a git checkout."""
    if os.path.isdir(os.path.join(source_dir, ".git")) or os.path.isfile(os.path.join(source_dir, ".git")):
        proc = subprocess.run(["git", "-C", source_dir, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                              capture_output=True, text=True)
        if proc.returncode == 0:
            return [p for p in proc.stdout.split("\0") if p and os.path.isfile(os.path.join(source_dir, p))]
    files = []
    for root, dirs, names in os.walk(source_dir):
        dirs[:] = [d for d in dirs if d != ".git" and not d.startswith("build")]
        files += [os.path.relpath(os.path.join(root, n), source_dir) for n in names]
    return files


def same_compilation_as(build_dir):
    """The -D options of build_dir that decide how a file compiles (compilers, build type,
    sanitizers), so that ccache reuses what building the tree itself compiled: scripts/build uses
    ccache when it is installed, with CCACHE_BASEDIR at the tree, as this test does at the copy."""
    wanted = ("CMAKE_BUILD_TYPE", "CMAKE_C_COMPILER", "CMAKE_CXX_COMPILER", "SHARDRUN_SANITIZE",
              "CMAKE_CUDA_ARCHITECTURES", "CMAKE_CUDA_COMPILER")
    options = {"CMAKE_BUILD_TYPE": "Release"}
    with open(os.path.join(build_dir, "CMakeCache.txt")) as f:
        for line in f:
            name, _, value = line.rstrip("\n").partition("=")
            if name.split(":")[0] in wanted and value:
                options[name.split(":")[0]] = value
    options["SHARDRUN_CUDA"] = "ON" if has_cuda(build_dir) else "OFF"
    return [f"-D{name}={value}" for name, value in options.items()]


def has_cuda(build_dir):
    """Whether build_dir was built with CUDA: its CUDA backend library is there."""
    return os.path.exists(os.path.join(build_dir, "libshardrun_cuda.so"))


def copy_tree(source_dir, src):
    """The tree's files into src (source at work/src, build at work/src/build: the layout of this
    tree, so that ccache sees the same relative paths as in a build of the tree itself)."""
    for rel in source_files(source_dir):
        target = os.path.join(src, rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copy2(os.path.join(source_dir, rel), target)


def configure_copy(src, tree_build_dir, log, tests):
    """Configures src/build like tree_build_dir (tests ON or OFF, no benchmarks); returns the build
    folder and the environment to build it in (CCACHE_BASEDIR at the copy)."""
    build = os.path.join(src, "build")
    configure = [CMAKE, "-S", src, "-B", build, f"-DSHARDRUN_BUILD_TESTS={'ON' if tests else 'OFF'}",
                 "-DSHARDRUN_BUILD_BENCHMARKS=OFF", *same_compilation_as(tree_build_dir)]
    env = dict(os.environ)
    if shutil.which("ccache"):
        configure += ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache", "-DCMAKE_C_COMPILER_LAUNCHER=ccache"]
        env["CCACHE_BASEDIR"] = src
        if has_cuda(tree_build_dir):
            configure += ["-DCMAKE_CUDA_COMPILER_LAUNCHER=ccache"]
    check_call(configure, log, env=env)
    return build, env

"""The file systems the io rows run on (issue 25, point 2: "on ext4 and on tmpfs, in one run"):
the run's --work folder (a disk: ext4 here) and a tmpfs folder, /dev/shm, where writes cost CPU
and memory only, so what a writer adds to the bytes' own copy shows unhidden by the disk."""
import os
import shutil
import subprocess

TMPFS_PARENT = "/dev/shm"


def fs_type(path):
    """The file system type of `path` as `stat -f` names it (ext2/ext3, tmpfs, ...)."""
    out = subprocess.run(["stat", "-f", "-c", "%T", path], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def scratch_dirs(ctx, name):
    """[(label, folder)]: the disk scratch, then a fresh tmpfs folder (when /dev/shm is tmpfs).
    The caller removes the folders (remove_dirs)."""
    disk = ctx.scratch(name)
    dirs = [(fs_type(disk).replace("ext2/ext3", "ext4"), disk)]
    if os.path.isdir(TMPFS_PARENT) and fs_type(TMPFS_PARENT) == "tmpfs":
        memory = os.path.join(TMPFS_PARENT, f"shardrun-bench-{name}-{os.getpid()}")
        shutil.rmtree(memory, ignore_errors=True)
        os.makedirs(memory)
        dirs.append(("tmpfs", memory))
    else:
        ctx.log(f"  no tmpfs at {TMPFS_PARENT}: the {name} rows run on {dirs[0][0]} only")
    return dirs


def remove_dirs(dirs):
    for _, folder in dirs:
        shutil.rmtree(folder, ignore_errors=True)

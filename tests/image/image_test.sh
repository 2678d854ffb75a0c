#!/usr/bin/env bash
# The container image (issue 22, point 6): scripts/build-image builds the repository's Dockerfile
# with podman on a debootstrap of Debian 12 (no registry is reachable here), or reuses the image
# already built from these same sources, and each check runs in the image with `podman run`:
#   shardrun --version names this commit; the build said it was CPU-only (no nvcc in the base);
#   shardrun selftest --device cpu; mpirun -np 2 shardrun run of examples/heat-sweep.yaml, its
#   33 tasks read back with the image's h5py; the same job through the installed entrypoint;
#   rclone version; import h5py, shardrun; the entrypoint is scripts/aws-batch/entrypoint as it
#   is in this tree; no Slurm and no test tools in the image.
# Exit 77 (ctest: skipped) with the reason only where it cannot run: not root, no podman, no
# debootstrap of Debian 12 (no mirror). Every container is removed, also when a check fails.
set -euo pipefail
source_dir=${SHARDRUN_SOURCE_DIR:?}

skip() { echo "image_test: SKIPPED: $*"; exit 77; }
[[ $(id -u) -eq 0 ]] || skip "needs root (rootful podman, debootstrap)"
command -v podman >/dev/null 2>&1 || skip "podman is missing; scripts/install-deps installs it"
if ! rootfs_log=$("$source_dir/scripts/minimal-rootfs" 2>&1); then
  skip "debootstrap could not make the Debian 12 base: $rootfs_log"
fi

podman=("$source_dir/scripts/podman-local")
scratch=$(mktemp -d "${TMPDIR:-/tmp}/shardrun-image-test.XXXXXX")
containers=()
cleanup() {
  if [[ ${#containers[@]} -gt 0 ]]; then
    "${podman[@]}" rm -f --ignore "${containers[@]}" >/dev/null 2>&1 || true
  fi
  rm -rf "$scratch"
}
trap cleanup EXIT

# ---- the image: built from these sources, or the one built from them before
start=$(date +%s)
"$source_dir/scripts/build-image" --reuse 2>&1 | tee "$scratch/build.log"
image=$(tail -n 1 "$scratch/build.log")
echo "image_test: image $image ready in $(($(date +%s) - start)) s"
"${podman[@]}" image exists "$image" || { echo "FAIL: build-image made no image $image"; exit 1; }

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# in_image NAME COMMAND...: runs COMMAND in a fresh container of the image (removed after), with
# the examples read-only at /examples and a scratch folder at /out; prints its output.
in_image() {
  local name=shardrun-image-test-$$-$1
  shift
  containers+=("$name")
  "${podman[@]}" run --rm --name "$name" --network host \
    -v "$source_dir/examples:/examples:ro" -v "$scratch/out:/out" "$image" "$@"
}
mkdir -p "$scratch/out"

# ---- shardrun --version names the commit the image was built from
commit=$(git -C "$source_dir" rev-parse --short=12 HEAD)
if version=$(in_image version shardrun --version 2>&1); then
  echo "shardrun --version: $version"
  [[ $version == "shardrun "*"($commit"* ]] || fail "shardrun --version does not name commit $commit: $version"
else
  fail "shardrun --version failed in the image: $version"
fi

# ---- the base has no nvcc, so the build was CPU-only and said so (only a fresh build prints it)
if ! grep -q "reusing $image" "$scratch/build.log"; then
  grep -q 'has no nvcc: building CPU-only (-DSHARDRUN_CUDA=OFF)' "$scratch/build.log" ||
    fail "the build did not say that it builds CPU-only"
fi
info=$(in_image info shardrun info 2>&1) || fail "shardrun info failed in the image: $info"
echo "$info" | grep -iE 'cuda' | head -n 3 || true

# ---- selftest on the CPU
if out=$(in_image selftest shardrun selftest --device cpu 2>&1); then
  echo "$out" | tail -n 3
else
  echo "$out"
  fail "shardrun selftest --device cpu failed in the image"
fi

# ---- 2 MPI ranks of an example; the results file read back with the image's own h5py
check_results() {  # check_results FILE WHAT
  local file=$1 what=$2
  if ! out=$(in_image "read-$what" python3 -c '
import sys, h5py
f = h5py.File(sys.argv[1], "r")
status = f["tasks/status"][:]
print("complete:", f.attrs["complete"], "tasks:", len(status), "ok:", int((status == 1).sum()))
assert bool(f.attrs["complete"]) and len(status) == 33 and (status == 1).all(), "not 33 ok tasks"
' "/out/$file" 2>&1); then
    echo "$out"
    fail "$what: the image's h5py did not read 33 ok tasks in a complete /out/$file"
    return
  fi
  echo "$what: $out"
}
if out=$(in_image mpirun bash -c 'mpirun -np 2 shardrun run /examples/heat-sweep.yaml --set device=cpu \
    --set output.path=/out/heat-sweep.h5 --force --progress plain' 2>&1); then
  echo "$out" | tail -n 2
  grep -q 'done 33/33 (33 ok, 0 failed)' <<<"$out" || fail "mpirun -np 2: the example did not run its 33 tasks"
  check_results heat-sweep.h5 mpirun
else
  echo "$out"
  fail "mpirun -np 2 shardrun run failed in the image"
fi

# ---- the same job through the installed cloud entrypoint (2 ranks, as SHARDRUN_RANKS_PER_NODE says)
if out=$(in_image entrypoint env SHARDRUN_RANKS_PER_NODE=2 shardrun-entrypoint /examples/heat-sweep.yaml \
    --set device=cpu --set output.path=/out/entrypoint.h5 --progress plain 2>&1); then
  echo "$out" | tail -n 2
  grep -q 'done 33/33 (33 ok, 0 failed)' <<<"$out" || fail "the entrypoint's run did not run the 33 tasks"
  check_results entrypoint.h5 entrypoint
else
  echo "$out"
  fail "shardrun-entrypoint failed in the image"
fi

# ---- the transfer tool, Python, the entrypoint as it is in this tree, nothing of the test machine
if out=$(in_image rclone rclone version 2>&1); then
  echo "$out" | head -n 1
else
  fail "rclone version failed in the image: $out"
fi
out=$(in_image python python3 -c 'import h5py, numpy, shardrun; print("h5py", h5py.__version__, "numpy", numpy.__version__)' 2>&1) ||
  fail "import h5py, numpy, shardrun failed in the image: $out"
echo "$out"
in_image entrypoint-file cat /usr/local/bin/shardrun-entrypoint >"$scratch/entrypoint" 2>&1 ||
  fail "no /usr/local/bin/shardrun-entrypoint in the image"
cmp -s "$scratch/entrypoint" "$source_dir/scripts/aws-batch/entrypoint" ||
  fail "/usr/local/bin/shardrun-entrypoint is not scripts/aws-batch/entrypoint of this tree"
absent=$(in_image absent bash -c 'for p in srun slurmd sbatch podman clang debootstrap; do command -v $p; done; ls -d /opt/shardrun-src /opt/shardrun-pyenv /opt/shardrun-cloudenv 2>/dev/null; true' 2>&1)
[[ -z $absent ]] || fail "the image holds what only the test machine needs: $absent"
size=$("${podman[@]}" image inspect --format '{{.Size}}' "$image")
echo "image size: $((size / 1048576)) MiB"

[[ $failures -eq 0 ]] || { echo "image_test: $failures check(s) failed"; exit 1; }
echo "image_test: passed"

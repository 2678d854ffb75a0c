#!/usr/bin/env bash
# The GPU bundle runs where none of shardrun's dependencies are (issue 20): scripts/gpu-bundle packs
# this build; a minimal Debian 12 (debootstrap --variant=minbase: no MPI, no HDF5, no compiler, no
# Python) is given only the archive, gpu-check and the CUDA toolkit's folder (read-only); there,
#   gpu-check --bundle ARCHIVE --force-build-only
# must find every library, pass the CPU steps (selftest, mpirun -np 2 of an example, the MPI
# allreduce benchmark, gpu-vs-cpu on the CPU) and skip the GPU steps, saying there is no GPU.
#
# Everything runs in a private mount and PID namespace (unshare): the root file system is an
# overlay on the cached rootfs, so the cache stays clean, and when the namespace's last process
# ends the mounts and every process go with it. Exit 77 (ctest: skipped) with the reason where
# this machine cannot do that (not root, no unshare, debootstrap failing, not a CUDA build).
set -euo pipefail
source_dir=${SHARDRUN_SOURCE_DIR:?}
build_dir=${SHARDRUN_BUILD_DIR:?}

skip() { echo "bundle_chroot_test: SKIPPED: $*"; exit 77; }
[[ $(id -u) -eq 0 ]] || skip "needs root (chroot, mounts)"
command -v unshare >/dev/null 2>&1 || skip "unshare (util-linux) is missing"
[[ -f $build_dir/libshardrun_cuda.so ]] || skip "$build_dir is not a CUDA build (no libshardrun_cuda.so): the bundle carries one"
cuda_root=$(sed -n 's/^CUDAToolkit_LIBRARY_ROOT:[A-Z]*=//p' "$build_dir/CMakeCache.txt")
cuda_root=$(readlink -f "${cuda_root:-/usr/local/cuda}")
[[ -d $cuda_root ]] || skip "the CUDA toolkit folder ($cuda_root) is missing"
if ! rootfs=$("$source_dir/scripts/minimal-rootfs" 2>&1 | tail -n 1) || [[ ! -x $rootfs/bin/bash ]]; then
  skip "debootstrap could not make the minimal Debian 12: $rootfs"
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/shardrun-bundle-test.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# ---- the archive
"$source_dir/scripts/gpu-bundle" --build-dir "$build_dir" --no-build --out "$scratch/out" | tee "$scratch/bundle.log"
archive=$scratch/out/shardrun-gpu-bundle.tar.gz
[[ -f $archive ]] || { echo "FAIL: gpu-bundle made no archive"; exit 1; }
size=$(stat -c %s "$archive")
echo "archive: $size bytes"
[[ $size -le $((48 * 1048576)) ]] || { echo "FAIL: the archive is over 48 MiB"; exit 1; }
grep -q "^gpu-bundle: $archive ([0-9.]* MiB" "$scratch/bundle.log" || { echo "FAIL: gpu-bundle did not print the archive's path and size"; exit 1; }

# ---- the bare root file system really is bare
for absent in usr/bin/mpirun usr/bin/python3 usr/bin/gcc usr/bin/cmake; do
  [[ ! -e $rootfs/$absent ]] || { echo "FAIL: the minimal rootfs has /$absent"; exit 1; }
done
if compgen -G "$rootfs/usr/lib/x86_64-linux-gnu/libmpi*" >/dev/null || compgen -G "$rootfs/usr/lib/x86_64-linux-gnu/libhdf5*" >/dev/null; then
  echo "FAIL: the minimal rootfs has MPI or HDF5 libraries"
  exit 1
fi

# ---- run gpu-check in it
mkdir -p "$scratch"/{upper,overlay-work,root}
cat >"$scratch/inside.sh" <<EOF
set -euo pipefail
root=$scratch/root
mount -t overlay overlay -o lowerdir=$rootfs,upperdir=$scratch/upper,workdir=$scratch/overlay-work \$root
mount -t proc proc \$root/proc
mount --rbind -o ro /sys \$root/sys
mount --rbind /dev \$root/dev
mount -t tmpfs tmpfs \$root/dev/shm
mkdir -p \$root/usr/local/cuda \$root/work
mount --bind -o ro $cuda_root \$root/usr/local/cuda
cp $archive $source_dir/scripts/gpu-check \$root/work/
# Nothing of this machine's environment goes in: a login-like PATH and HOME only.
chroot \$root /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \\
  TMPDIR=/tmp bash -c 'cd /work && ./gpu-check --bundle /work/shardrun-gpu-bundle.tar.gz --out /work/report --force-build-only'
EOF
status=0
unshare --mount --pid --fork --kill-child bash "$scratch/inside.sh" || status=$?
report=$scratch/upper/work/report/report.txt
[[ -f $report ]] || { echo "FAIL: gpu-check wrote no report (exit status $status)"; exit 1; }
echo "---- report.txt"
cat "$report"
echo "---- end of report.txt"

failures=0
expect() {  # expect REGEX WHY: one line of the report's step list matches
  if ! sed -n '/^== steps$/,$p' "$report" | grep -qE "$1"; then
    echo "FAIL: $2 (no step line matching: $1)"
    failures=$((failures + 1))
  fi
}
expect '^passed   libraries ' "every library of the bundle resolves in the bare rootfs"
expect '^skipped  GPU tests: no GPU \(nvidia-smi is not installed.*\): the GPU tests ran and skipped$' "the GPU tests load and skip"
expect '^passed   selftest ' "the selftest runs on the CPU"
expect '^passed   mpirun example \(cpu\) ' "the bundle's mpirun runs 2 ranks of an example"
expect '^passed   bench allreduce \(mpi\) ' "the MPI allreduce benchmark runs"
expect '^passed   gpu-vs-cpu ' "gpu-vs-cpu runs its CPU column"
expect '^skipped  compute-sanitizer memcheck: no GPU' "compute-sanitizer is skipped with the reason"
expect '^skipped  bench allreduce \(nccl\): no GPU \(nvidia-smi is not installed' "the NCCL benchmark is skipped with the reason"
expect '^skipped  train-sweep \(cuda\): no GPU \(nvidia-smi is not installed' "the CUDA training is skipped with the reason"
expect '^skipped  gemm kind \(cpu vs cuda\): no GPU \(nvidia-smi is not installed' "the gemm kind on the GPU is skipped with the reason"
expect '^skipped  routing \(device: auto\): no GPU \(nvidia-smi is not installed' "routing on the GPU is skipped with the reason"
expect '^skipped  telemetry \(NVML\): no GPU \(nvidia-smi is not installed' "NVML telemetry is skipped with the reason"
expect '^skipped  packing \(MPS\): no GPU \(nvidia-smi is not installed' "MPS packing is skipped with the reason"
if grep -q '^failed ' "$report"; then
  echo "FAIL: a step failed:"
  grep '^failed ' "$report"
  failures=$((failures + 1))
fi
[[ $status -eq 0 ]] || { echo "FAIL: gpu-check exited $status"; failures=$((failures + 1)); }
# The example's results file was written, with all its 33 tasks (the bundle's HDF5 and MPI-IO).
heat=$scratch/upper/work/report/work/heat-sweep.h5
[[ -s $heat ]] || { echo "FAIL: the example wrote no $heat"; failures=$((failures + 1)); }
if [[ -s $heat ]] && command -v h5dump >/dev/null 2>&1; then
  h5dump -A -a complete "$heat" | grep -q '(0): TRUE' || { echo "FAIL: the example's results file is not complete"; failures=$((failures + 1)); }
fi
grep -q 'done 33/33 (33 ok, 0 failed)' "$scratch/upper/work/report/logs/mpirun-example--cpu-.log" ||
  { echo "FAIL: the example did not run its 33 tasks"; failures=$((failures + 1)); }
[[ $failures -eq 0 ]] || exit 1
echo "bundle_chroot_test: passed"

# shardrun with Open MPI, HDF5, rclone and Python (h5py): the image that the job files of
# `shardrun submit --to aws-batch|gcp-batch --image URI` run. Built with CUDA and NCCL on the
# default base; on a base without nvcc, CPU-only.
#
#   docker build -t shardrun .                                               # CUDA 13.0, Ubuntu 24.04
#   docker build --build-arg BASE=nvidia/cuda:12.8.1-devel-ubuntu24.04 -t shardrun:cuda12.8 .
#   docker build --build-arg CUDA_ARCHS="90" -t shardrun:h100 .              # fewer GPU architectures
#   docker run --rm --gpus all shardrun shardrun info
# podman takes the same arguments (podman build ..., podman run --device nvidia.com/gpu=all ...).
#
# BUILT AND RUN HERE (scripts/build-image, tests/image/): the development machine has no Docker
# engine and reaches no registry of images, so scripts/build-image imports a debootstrap of
# Debian 12 as the base (localhost/debian:12-shardrun-base), builds this file on it with podman
# (--build-arg BASE=localhost/debian:12-shardrun-base), and the test runs shardrun --version,
# selftest, mpirun -np 2 of an example, rclone and h5py in the image with podman run. That base has
# no nvcc, so that image is CPU-only: the build says so and -DSHARDRUN_CUDA=OFF. The CUDA default
# is built the same way wherever nvidia/cuda can be pulled.
#
# Your own packages on top of this image (a requirements.txt, a Dockerfile fragment):
#   scripts/build-image --requirements requirements.txt --name NAME:TAG
# builds it and prints the lines that push it to ECR or Artifact Registry (README, "Your own image").
#
# A base must be Debian or Ubuntu (scripts/install-deps uses apt-get). CUDA=auto (the default)
# builds with CUDA when the base has nvcc (the nvidia/cuda *-devel images), and says that it
# builds CPU-only when not; CUDA=ON fails the build without nvcc or NCCL, so a GPU image never
# silently lacks the GPU path; CUDA=OFF never builds it.
#
# NCCL: the nvidia/cuda *-devel images ship libnccl-dev already (nccl.h in /usr/include, libnccl
# in /usr/lib/<arch>). With a base that lacks it, libnccl-dev comes from NVIDIA's CUDA apt
# repository, which the nvidia/cuda images configure.
#
# What the image holds: shardrun (/usr/local/bin), Open MPI (mpirun), HDF5's tools, rclone (the
# transfer tool for s3:// and gs:// output), Python 3 with h5py and numpy, the shardrun Python
# package, and the cloud entrypoint. The packages are scripts/install-deps' image set
# (SHARDRUN_DEPS=image): the compiler and the -dev packages stay (they build shardrun here, and
# a task kind of one's own against the installed library); Slurm and the test tools do not.
#
# Rebuilds: the packages are one layer that source edits do not touch, and the compile goes
# through ccache in a build cache mount (RUN --mount=type=cache; BuildKit and podman/buildah), so
# a rebuild after an edit recompiles only what changed. The cache is not part of the image.
#
# The shardrun Python package (scripts/python: shardrun.params(), shardrun.result(), the worker
# loop) is installed into the system Python (PEP 668's --break-system-packages: the image is
# shardrun's own), so a task's `import shardrun` works as it does after `pip install scripts/python`.
#
# Cloud jobs: the job files give the whole command. With an s3:// or gs:// output it is
# `shardrun-entrypoint <output>.submit/<target>/job.yaml ...`: scripts/aws-batch/entrypoint,
# installed, as it is in the build context, as /usr/local/bin/shardrun-entrypoint (it needs rclone, from install-deps); with a
# shared file system, `bash <entrypoint> job.yaml ...`, the copy `shardrun submit` wrote next to the
# job files. AWS Batch appends a job's command to the image's ENTRYPOINT, so this image sets none
# (CMD only).
# Multi-node AWS jobs start mpirun over ssh: sshd is installed, the keys are yours to add
# (e.g. in a derived image or a mounted ~/.ssh).
ARG BASE=nvidia/cuda:13.0.0-devel-ubuntu24.04
FROM ${BASE}

LABEL org.opencontainers.image.title="shardrun" \
      org.opencontainers.image.description="Batch runner for HPC clusters: one job file, tasks over array elements, MPI ranks and GPUs, results in one HDF5 file"

SHELL ["/bin/bash", "-o", "pipefail", "-c"]

# Build and run-time packages from the project's own list (its image set), then NCCL when a CUDA
# base lacks it and ssh for multi-node mpirun. Its own layer, so source edits do not reinstall them.
COPY scripts/install-deps /opt/shardrun-src/scripts/install-deps
# Versions follow the base image's release (unpinned, as install-deps does).
# hadolint ignore=DL3008
RUN export DEBIAN_FRONTEND=noninteractive \
 && apt-get update -qq \
 && SHARDRUN_DEPS=image /opt/shardrun-src/scripts/install-deps \
 && if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then \
        if [ ! -e /usr/include/nccl.h ] && [ ! -e /usr/local/cuda/include/nccl.h ]; then \
            apt-get install -y -qq --no-install-recommends libnccl-dev; \
        fi; \
    fi \
 && apt-get install -y -qq --no-install-recommends openssh-client openssh-server \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/*

# The build's arguments come after the package layer: a RUN step after an ARG is rebuilt when
# the argument's value changes, and the commit changes with every build.
ARG BASE
ARG CUDA=auto
ARG CUDA_ARCHS="80;90"
ARG BUILD_TYPE=Release
# The commit `shardrun --version` names (scripts/build-image passes it): the build context may
# be a git worktree, whose .git points outside it. Empty: CMake asks git in the context.
ARG SHARDRUN_COMMIT=""
COPY . /opt/shardrun-src
RUN --mount=type=cache,target=/root/.cache/ccache \
    cuda="${CUDA}" \
 && if [ "$cuda" = auto ]; then \
        if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then cuda=ON; else \
            cuda=OFF; echo "shardrun image: the base (${BASE}) has no nvcc: building CPU-only (-DSHARDRUN_CUDA=OFF)"; \
        fi; \
    fi \
 && cmake -S /opt/shardrun-src -B /tmp/shardrun-build \
        -DCMAKE_BUILD_TYPE="${BUILD_TYPE}" -DSHARDRUN_CUDA="$cuda" -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS}" \
        -DSHARDRUN_BUILD_TESTS=OFF -DSHARDRUN_BUILD_BENCHMARKS=OFF -DSHARDRUN_GIT_COMMIT="${SHARDRUN_COMMIT:-unknown}" \
        -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache \
 && CCACHE_DIR=/root/.cache/ccache cmake --build /tmp/shardrun-build --target shardrun -j"$(nproc)" \
 && cmake --install /tmp/shardrun-build --prefix /usr/local \
 && ln -s /usr/local/share/shardrun/aws-batch/entrypoint /usr/local/bin/shardrun-entrypoint \
 && python3 -m pip install --no-cache-dir --no-build-isolation --break-system-packages /opt/shardrun-src/scripts/python \
 && python3 -c 'import shardrun, h5py' \
 && rm -rf /tmp/shardrun-build /opt/shardrun-src \
 && shardrun --version

# Containers run as root; Open MPI refuses root unless told otherwise. shardrun itself never
# sets these; the image does, because in a container root is the normal (and only) user.
ENV OMPI_ALLOW_RUN_AS_ROOT=1 \
    OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

WORKDIR /work
CMD ["shardrun", "--help"]

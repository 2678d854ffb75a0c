# shardrun built with CUDA and NCCL: the image that the job files of
# `shardrun submit --to aws-batch|gcp-batch --image URI` run.
#
#   docker build -t shardrun .                                               # CUDA 13.0, Ubuntu 24.04
#   docker build --build-arg BASE=nvidia/cuda:12.8.1-devel-ubuntu24.04 -t shardrun:cuda12.8 .
#   docker build --build-arg CUDA_ARCHS="90" -t shardrun:h100 .              # fewer GPU architectures
#   docker run --rm --gpus all shardrun shardrun info
#
# NOT BUILT HERE: the project's development machine has the Docker client but no Docker engine,
# and no base image can be pulled from it, so this file was checked with hadolint and by reading
# only. A base must be Debian or Ubuntu (scripts/install-deps uses apt-get) with nvcc and cuBLAS.
#
# NCCL: the nvidia/cuda *-devel images ship libnccl-dev already (nccl.h in /usr/include, libnccl
# in /usr/lib/<arch>). With a base that lacks it, libnccl-dev comes from NVIDIA's CUDA apt
# repository, which the nvidia/cuda images configure. -DSHARDRUN_CUDA=ON fails the build when
# nvcc or NCCL is missing, so the image never silently lacks the GPU path.
#
# The shardrun Python package (scripts/python: shardrun.params(), shardrun.result(), the worker
# loop) is installed into the system Python (PEP 668's --break-system-packages: the image is
# shardrun's own), so a task's `import shardrun` works as it does after `pip install scripts/python`.
#
# Cloud jobs: the job files give the whole command. With an s3:// or gs:// output it is
# `shardrun-entrypoint <output>.submit/<target>/job.yaml ...`: scripts/aws-batch/entrypoint,
# installed as /usr/local/bin/shardrun-entrypoint (it needs rclone, from install-deps); with a
# shared file system, `bash <entrypoint> job.yaml ...`, the copy `shardrun submit` wrote next to the
# job files. AWS Batch appends a job's command to the image's ENTRYPOINT, so this image sets none
# (CMD only).
# Multi-node AWS jobs start mpirun over ssh: sshd is installed, the keys are yours to add
# (e.g. in a derived image or a mounted ~/.ssh).
ARG BASE=nvidia/cuda:13.0.0-devel-ubuntu24.04
FROM ${BASE}

ARG CUDA_ARCHS="80;90"
ARG BUILD_TYPE=Release

LABEL org.opencontainers.image.title="shardrun" \
      org.opencontainers.image.description="Batch runner for HPC clusters: one job file, tasks over array elements, MPI ranks and GPUs, results in one HDF5 file"

SHELL ["/bin/bash", "-o", "pipefail", "-c"]

# Build and run-time packages from the project's own list (without the one-node Slurm cluster of
# its tests), then NCCL when the base lacks it and ssh for multi-node mpirun. Its own layer, so
# source edits do not reinstall them.
COPY scripts/install-deps /opt/shardrun-src/scripts/install-deps
# Versions follow the base image's release (unpinned, as install-deps does).
# hadolint ignore=DL3008
RUN export DEBIAN_FRONTEND=noninteractive \
 && apt-get update -qq \
 && SHARDRUN_WITH_SLURM=0 /opt/shardrun-src/scripts/install-deps \
 && if [ ! -e /usr/include/nccl.h ] && [ ! -e /usr/local/cuda/include/nccl.h ]; then \
        apt-get install -y -qq --no-install-recommends libnccl-dev; \
    fi \
 && apt-get install -y -qq --no-install-recommends openssh-client openssh-server \
 && rm -rf /var/lib/apt/lists/*

COPY . /opt/shardrun-src
RUN cmake -S /opt/shardrun-src -B /tmp/shardrun-build \
        -DCMAKE_BUILD_TYPE="${BUILD_TYPE}" -DSHARDRUN_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS}" \
        -DSHARDRUN_BUILD_TESTS=OFF -DSHARDRUN_BUILD_BENCHMARKS=OFF \
 && cmake --build /tmp/shardrun-build --target shardrun -j"$(nproc)" \
 && cmake --install /tmp/shardrun-build --prefix /usr/local \
 && ln -s /usr/local/share/shardrun/aws-batch/entrypoint /usr/local/bin/shardrun-entrypoint \
 && python3 -m pip install --no-cache-dir --break-system-packages /opt/shardrun-src/scripts/python \
 && python3 -c 'import shardrun' \
 && rm -rf /tmp/shardrun-build /opt/shardrun-src \
 && shardrun --version

# Containers run as root; Open MPI refuses root unless told otherwise. shardrun itself never
# sets these; the image does, because in a container root is the normal (and only) user.
ENV OMPI_ALLOW_RUN_AS_ROOT=1 \
    OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

WORKDIR /work
CMD ["shardrun", "--help"]

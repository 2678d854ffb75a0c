# Spack recipe for shardrun. Use it from a repository of your own:
#
#   spack repo create ~/spack-shardrun shardrun        # once; prints the repo's packages/ folder
#   mkdir -p <that folder>/shardrun && cp scripts/spack/package.py <that folder>/shardrun/
#   spack repo add ~/spack-shardrun
#   spack install shardrun@main +cuda cuda_arch=90       # or ~cuda (CPU build)
#   spack load shardrun                                  # shardrun on PATH; find_package(shardrun) works
#
# Written for Spack 1.x (build systems in spack_repo.builtin), with a fallback for 0.23.
# `git` below must name a clone you can reach; for a checkout on disk use
# `spack develop --path /path/to/shardrun shardrun@main` inside an environment.
try:
    from spack_repo.builtin.build_systems.cmake import CMakePackage
    from spack_repo.builtin.build_systems.cuda import CudaPackage
except ImportError:  # Spack < 1.0: the build systems came with spack.package
    pass

from spack.package import *


class Shardrun(CMakePackage, CudaPackage):
    """Batch runner for HPC clusters: one job file (a parameter sweep, a data range or both),
    tasks split over array elements, MPI ranks and GPUs, every result in one HDF5 file."""

    # The project publishes no URL yet: point `git` at the clone you build from.
    homepage = "https://example.invalid/shardrun"
    git = "https://example.invalid/shardrun.git"

    version("main", branch="main")

    # CudaPackage gives `cuda` (default off) and `cuda_arch`, and depends on cuda when +cuda.
    variant(
        "nccl",
        default=True,
        when="+cuda",
        description="NCCL communicators (gpus_per_task > 1 on GPUs, bench --backend nccl)",
    )
    variant(
        "report",
        default=False,
        description="Python with h5py and matplotlib for `shardrun report` (else the system python3)",
    )
    # SHARDRUN_CUDA=ON builds the CUDA kernels, cuBLAS and NCCL together: a CUDA build without
    # NCCL is not one the project's CMakeLists offers.
    conflicts("~nccl", when="+cuda", msg="shardrun's CUDA build needs NCCL (SHARDRUN_CUDA builds CUDA and NCCL together)")
    conflicts("cuda_arch=none", when="+cuda", msg="name the GPUs' compute capability, e.g. cuda_arch=90 (NCCL needs it)")

    depends_on("c", type="build")
    depends_on("cxx", type="build")
    depends_on("cmake@3.24:", type="build")
    depends_on("pkgconfig", type="build")

    depends_on("mpi")
    depends_on("hdf5@1.10: +mpi +hl")  # parallel HDF5; hl for the dimension scales
    depends_on("boost +program_options")
    depends_on("yaml-cpp")
    depends_on("fmt")
    depends_on("nlohmann-json")
    depends_on("openblas")  # found through pkg-config as `openblas`
    depends_on("openssl")  # SHA-256 of the resolved job
    depends_on("googletest", type="test")

    with when("+cuda"):
        depends_on("cuda@12:")
    with when("+nccl"):
        depends_on("nccl")
        for arch in CudaPackage.cuda_arch_values:
            depends_on(f"nccl +cuda cuda_arch={arch}", when=f"+nccl cuda_arch={arch}")

    with when("+report"):
        depends_on("python@3.8:", type="run")
        depends_on("py-h5py", type="run")
        depends_on("py-matplotlib", type="run")

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define("SHARDRUN_CUDA", "ON" if spec.satisfies("+cuda") else "OFF"),
            self.define("SHARDRUN_BUILD_TESTS", self.run_tests),
            self.define("SHARDRUN_BUILD_BENCHMARKS", False),
            self.define("HDF5_ROOT", spec["hdf5"].prefix),
        ]
        if spec.satisfies("+cuda"):
            args.append(self.define("CMAKE_CUDA_COMPILER", spec["cuda"].prefix.bin.nvcc))
            if not spec.satisfies("cuda_arch=none"):
                args.append(self.define("CMAKE_CUDA_ARCHITECTURES", spec.variants["cuda_arch"].value))
        if spec.satisfies("+nccl"):
            args.append(self.define("SHARDRUN_NCCL_INCLUDE_DIR", spec["nccl"].prefix.include))
            args.append(self.define("SHARDRUN_NCCL_LIBRARY", spec["nccl"].libs[0]))
        return args

    def setup_run_environment(self, env):
        # `shardrun report` runs this Python when set (see runner/cli/command_report.hpp).
        if self.spec.satisfies("+report"):
            env.set("SHARDRUN_PYTHON", self.spec["python"].command.path)

-- Lmod modulefile for shardrun (template).
--
-- `cmake --install` writes a filled-in copy to
--   <prefix>/share/shardrun/modulefiles/shardrun/<version>.lua
-- so that `module use <prefix>/share/shardrun/modulefiles && module load shardrun` works.
-- To put it into a site's module tree instead, copy it to <tree>/shardrun/<version>.lua and
-- replace @SHARDRUN_PREFIX@ (the install prefix) and @SHARDRUN_VERSION@ by hand. Spack
-- installs (scripts/spack/package.py) get a modulefile from Spack itself.

local prefix  = "@SHARDRUN_PREFIX@"
local version = "@SHARDRUN_VERSION@"

whatis("Name: shardrun")
whatis("Version: " .. version)
whatis("Description: batch runner for HPC clusters: one job file, tasks over array elements, MPI ranks and GPUs, results in one HDF5 file")
whatis("Features: @SHARDRUN_FEATURES@")
help([[
shardrun ]] .. version .. [[ (@SHARDRUN_FEATURES@)

  mpirun -np 4 shardrun run job.yaml       run a job
  shardrun plan job.yaml --ranks 8         where each task would run
  shardrun status results/job.h5           done / failed / pending
  shardrun report results/job.h5           a picture of the run (needs python3 h5py + matplotlib)

find_package(shardrun) finds the C++ package (shardrun::shardrun) once this is loaded.
]])

-- The MPI and HDF5 shardrun was built against must be the ones at run time. On a site where
-- they are modules, name them here, e.g.:  depends_on("openmpi", "hdf5")

prepend_path("PATH", pathJoin(prefix, "bin"))
prepend_path("CMAKE_PREFIX_PATH", prefix)
setenv("SHARDRUN_ROOT", prefix)

#pragma once

namespace shardrun::kernels {

/**
 * Sizes the CPU kernels' thread pools for the calling thread: OpenMP's parallel regions it starts
 * (omp_set_num_threads is per thread) and OpenBLAS (process-wide). Those libraries read
 * OMP_NUM_THREADS and OPENBLAS_NUM_THREADS once, when the process starts, so a runner that learns
 * its CPU share later calls this from each thread that runs kernels. threads < 1 does nothing.
 */
void use_cpu_threads(int threads);

}  // namespace shardrun::kernels

#include "kernels/common/cpu_threads.hpp"

#include <cblas.h>
#include <omp.h>

namespace shardrun::kernels {

void use_cpu_threads(int threads)
{
    if (threads < 1) return;
    omp_set_num_threads(threads);
    openblas_set_num_threads(threads);
}

}  // namespace shardrun::kernels

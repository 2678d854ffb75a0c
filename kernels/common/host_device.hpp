#pragma once

// Element math shared by the CPU and CUDA halves of a kernel is marked with this,
// so the CPU tests exercise exactly the arithmetic the GPU runs.
#if defined(__CUDACC__)
#define SHARDRUN_HOST_DEVICE __host__ __device__
#else
#define SHARDRUN_HOST_DEVICE
#endif

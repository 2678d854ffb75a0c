#pragma once

#include <memory>
#include <string>
#include <vector>

#include "collectives/communicator.hpp"
#include "runner/env/device_binding.hpp"
#include "runner/gpu/mps_daemon.hpp"
#include "runner/gpu/mps_env.hpp"
#include "runner/job/job_spec.hpp"

namespace shardrun::run {

/**
 * What `gpu_sharing: mps` needs before anything runs, checked on every rank: the control
 * program on PATH. @throws UsageError (exit 2) naming what is missing
 */
void check_gpu_sharing(const job::JobSpec& spec);

/**
 * A rank's part of GPU sharing (issue 26, point 1) and of MIG binding, set up before the CUDA
 * backend is first loaded, since CUDA reads CUDA_VISIBLE_DEVICES and the MPS variables when it
 * initialises:
 * - MIG: where the node's GPUs are split into MIG instances (`nvidia-smi -L`, run once per
 *   node) and CUDA_VISIBLE_DEVICES is unset, the rank takes instance (local rank mod count)
 *   by its UUID in CUDA_VISIBLE_DEVICES; bind_device then sees one named device.
 * - MPS: the node's lowest local rank starts one control daemon for the job (gpu/mps_daemon.hpp);
 *   every rank of the node sets the MPS variables in its own environment (its built-in
 *   kernels are one MPS client holding K slots), and bind() gives each task its own.
 */
class GpuSharingSetup {
public:
    /** Collective over `node`. @throws Error (on every rank of the node) when the daemon does not start */
    GpuSharingSetup(const job::JobSpec& spec, collectives::Communicator& node);

    /**
     * Once the rank is bound to `device`: sets the rank process's own MPS memory limit for it,
     * and returns the variables every task (exec task, worker) on it gets: the MPS pipe and log
     * folders, its thread share and memory limit; empty without MPS or on the CPU.
     */
    std::vector<std::string> bind(const env::DeviceBinding& device);

    /** Collective over `node`: once every rank of the node is done with its tasks, stops the daemon. */
    void finish(collectives::Communicator& node);

private:
    job::GpuSharingSpec sharing_;
    std::unique_ptr<gpu::MpsDaemon> daemon_;  ///< on the node's lowest local rank
    gpu::MpsClientSettings client_;           ///< one task's settings
};

}  // namespace shardrun::run

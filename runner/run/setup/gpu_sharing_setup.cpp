#include "runner/run/setup/gpu_sharing_setup.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <functional>

#include "runner/errors.hpp"
#include "runner/gpu/mig_devices.hpp"
#include "runner/gpu/nvidia_tools.hpp"

namespace shardrun::run {
namespace {

// The lowest local rank's answer, or its error prefixed with '!', shared with the node.
constexpr char failed_mark = '!';

std::string node_answer(collectives::Communicator& node, const std::function<std::string()>& on_lowest)
{
    std::string mine;
    if (node.rank() == 0) {
        try {
            mine = on_lowest();
        } catch (const std::exception& error) {
            mine = failed_mark + std::string(error.what());
        }
    }
    auto answer = collectives::allgather_strings(node, mine).front();
    if (!answer.empty() && answer.front() == failed_mark) SHARDRUN_THROW(Error, answer.substr(1));
    return answer;
}

void bind_mig_instance(collectives::Communicator& node)
{
    const auto listing = node_answer(node, [] { return gpu::nvidia_smi_list().value_or(""); });
    const auto targets = gpu::mig_bind_targets(gpu::parse_gpu_list(listing));
    if (targets.empty()) return;
    // One instance per rank: a CUDA process uses one MIG instance, whatever it is shown.
    const auto& mine = targets[static_cast<size_t>(node.rank()) % targets.size()];
    setenv("CUDA_VISIBLE_DEVICES", mine.c_str(), 1);
}

}  // namespace

void check_gpu_sharing(const job::JobSpec& spec)
{
    if (!spec.gpu_sharing.mps() || !gpu::find_mps_control().empty()) return;
    SHARDRUN_THROW(UsageError, fmt::format("gpu_sharing: mps needs {} on PATH (it comes with the NVIDIA driver) and "
                                           "none was found; add its folder to PATH, or use gpu_sharing: time",
                                           gpu::mps_control_program));
}

GpuSharingSetup::GpuSharingSetup(const job::JobSpec& spec, collectives::Communicator& node) : sharing_(spec.gpu_sharing)
{
    const bool may_use_gpu = spec.device != job::DevicePreference::cpu;
    if (may_use_gpu && std::getenv("CUDA_VISIBLE_DEVICES") == nullptr && spec.gpus_per_rank == 1) bind_mig_instance(node);
    if (!sharing_.mps()) return;
    const auto folders = node_answer(node, [&] {
        daemon_ = std::make_unique<gpu::MpsDaemon>(gpu::find_mps_control());
        return daemon_->pipe_dir() + "\n" + daemon_->log_dir();
    });
    const auto newline = folders.find('\n');
    client_ = {folders.substr(0, newline), folders.substr(newline + 1), sharing_.thread_percent, sharing_.memory_bytes};
    // The rank's own CUDA (built-in kernels) connects to the daemon when it initialises.
    const auto own = gpu::rank_process_settings(client_, sharing_.tasks_per_gpu);
    for (const auto& entry : gpu::mps_client_env({own.pipe_dir, own.log_dir, own.thread_percent, 0}, 0)) {
        const auto equals = entry.find('=');
        setenv(entry.substr(0, equals).c_str(), entry.substr(equals + 1).c_str(), 1);
    }
}

std::vector<std::string> GpuSharingSetup::bind(const env::DeviceBinding& device)
{
    if (!sharing_.mps() || !device.cuda || client_.pipe_dir.empty()) return {};
    if (sharing_.memory_bytes > 0) {
        // The rank's own limit names its device among all it sees. @internal Takes effect only
        // if CUDA reads it when the first context is made, after this point: check on a GPU.
        const auto own = gpu::rank_process_settings(client_, sharing_.tasks_per_gpu);
        const auto entry = gpu::mps_client_env(own, device.ordinal).back();
        const auto equals = entry.find('=');
        setenv(entry.substr(0, equals).c_str(), entry.substr(equals + 1).c_str(), 1);
    }
    // A task sees its one GPU as ordinal 0 (CUDA_VISIBLE_DEVICES names only it).
    return gpu::mps_client_env(client_, 0);
}

void GpuSharingSetup::finish(collectives::Communicator& node)
{
    if (!sharing_.mps()) return;
    node.barrier();
    if (daemon_) daemon_->stop();
}

}  // namespace shardrun::run

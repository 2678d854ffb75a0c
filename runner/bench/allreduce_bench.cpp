#include "runner/bench/allreduce_bench.hpp"

#include <algorithm>
#include <chrono>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "collectives/mpi/mpi_communicator.hpp"
#include "collectives/nccl/nccl_communicator.hpp"
#include "kernels/common/cuda_runtime.hpp"
#include "kernels/common/device_buffer.hpp"
#include "runner/errors.hpp"

namespace shardrun::bench {
namespace {

using collectives::Communicator;
using collectives::DataType;
using collectives::ReduceOp;

/** Host memory buffers on the MPI communicator of the group. */
class HostBackend final : public AllreduceBackend {
public:
    explicit HostBackend(std::unique_ptr<Communicator> group) : group_(std::move(group)) {}
    Communicator& group() override { return *group_; }
    void reserve(std::size_t count) override
    {
        if (send_.size() < count) send_.resize(count);
        if (recv_.size() < count) recv_.resize(count);
    }
    std::span<float> host_send(std::size_t count) override { return {send_.data(), count}; }
    std::span<float> host_recv(std::size_t count) override { return {recv_.data(), count}; }
    const void* send_buffer() override { return send_.data(); }
    void* recv_buffer() override { return recv_.data(); }

private:
    std::unique_ptr<Communicator> group_;
    std::vector<float> send_, recv_;
};

/** Device memory on the group's NCCL communicator, staged through host vectors for the data check. */
class DeviceBackend final : public AllreduceBackend {
public:
    DeviceBackend(std::unique_ptr<Communicator> nccl, kernels::Device device)
        : nccl_(std::move(nccl)), device_(device) {}
    Communicator& group() override { return *nccl_; }
    void reserve(std::size_t count) override
    {
        if (send_.size() >= count) return;
        send_.resize(count);
        recv_.resize(count);
        send_device_ = kernels::DeviceBuffer(device_, count * sizeof(float));
        recv_device_ = kernels::DeviceBuffer(device_, count * sizeof(float));
    }
    std::span<float> host_send(std::size_t count) override { return {send_.data(), count}; }
    std::span<float> host_recv(std::size_t count) override { return {recv_.data(), count}; }
    const void* send_buffer() override { return send_device_.data(); }
    void* recv_buffer() override { return recv_device_.data(); }
    void upload(std::size_t count) override
    {
        send_device_.copy_from_host(std::span<const float>(send_.data(), count));
        recv_device_.copy_from_host(std::span<const float>(recv_.data(), count));
    }
    void download(std::size_t count) override { recv_device_.copy_to_host(std::span<float>(recv_.data(), count)); }
    void synchronize() override { collectives::nccl::synchronize(*nccl_); }

private:
    std::unique_ptr<Communicator> nccl_;
    kernels::Device device_;
    std::vector<float> send_, recv_;
    kernels::DeviceBuffer send_device_, recv_device_;
};

// Each group gets an NCCL communicator over its host (MPI) group; a rank uses GPU
// local rank mod the GPUs it sees, as `shardrun run` binds ranks.
std::unique_ptr<AllreduceBackend> make_nccl_backend(Communicator& world, int group_size)
{
    if (!collectives::nccl::compiled()) {
        SHARDRUN_THROW(UsageError, "bench allreduce --backend nccl: this shardrun was built without CUDA and NCCL");
    }
    const auto cuda = kernels::query_cuda_runtime();
    if (cuda.device_count == 0) {
        SHARDRUN_THROW(UsageError, "bench allreduce --backend nccl: no GPU is visible: " + cuda.no_device_reason);
    }
    const auto node = collectives::mpi::split_by_node(world);
    const auto host_group = world.split(world.rank() / group_size, world.rank());
    const auto device = kernels::Device::cuda(node->rank() % cuda.device_count);
    return std::make_unique<DeviceBackend>(collectives::nccl::make_nccl_communicator(*host_group, device.ordinal, 60.0),
                                           device);
}

// Element values a rank can compute for any rank: small integers, so every partial sum is
// exact in float whatever the reduction order and the expected sum can be compared with ==.
// The index term catches misplaced elements, the rank term a missing or doubled contribution.
float rank_term(int rank) noexcept { return static_cast<float>(rank % 7 + 1); }
float index_term(std::size_t index) noexcept { return static_cast<float>(index % 61); }

void fill_send(std::span<float> send, int rank)
{
    const float mine = rank_term(rank);
    for (std::size_t i = 0; i < send.size(); ++i) send[i] = mine + index_term(i);
}

std::uint64_t count_wrong(std::span<const float> recv, int ranks)
{
    float rank_sum = 0;
    for (int r = 0; r < ranks; ++r) rank_sum += rank_term(r);
    std::uint64_t wrong = 0;
    for (std::size_t i = 0; i < recv.size(); ++i) {
        if (recv[i] != rank_sum + static_cast<float>(ranks) * index_term(i)) ++wrong;  // NaN counts too
    }
    return wrong;
}

void allreduce_once(AllreduceBackend& backend, std::size_t count)
{
    backend.group().allreduce_raw(backend.send_buffer(), backend.recv_buffer(), count, DataType::float32,
                                  ReduceOp::sum);
}

// Seconds per iteration on this rank. The world barrier makes every group start together,
// so concurrent groups share the machine as they would in a real run.
double timed_loop(AllreduceBackend& backend, Communicator& world, std::size_t count, int iters, int warmup)
{
    for (int k = 0; k < warmup; ++k) allreduce_once(backend, count);
    backend.synchronize();
    world.barrier();
    const auto start = std::chrono::steady_clock::now();
    for (int k = 0; k < iters; ++k) allreduce_once(backend, count);
    backend.synchronize();
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    return elapsed.count() / iters;
}

// One more allreduce into a poisoned recv buffer, so every element must have been written.
std::uint64_t checked_allreduce(AllreduceBackend& backend, std::size_t count)
{
    auto recv = backend.host_recv(count);
    std::fill(recv.begin(), recv.end(), std::numeric_limits<float>::quiet_NaN());
    backend.upload(count);
    allreduce_once(backend, count);
    backend.synchronize();
    backend.download(count);
    return count_wrong(recv, backend.group().size());
}

std::string format_time(double us)
{
    // As nccl-tests: fewer decimals as the time grows, so the column keeps its width.
    if (us >= 10000) return fmt::format("{:.0f}", us);
    if (us >= 100) return fmt::format("{:.1f}", us);
    return fmt::format("{:.2f}", us);
}

int group_size_of(const AllreduceOptions& options, int ranks) { return options.group == 0 ? ranks : options.group; }

}  // namespace

const char* backend_name(Backend backend) noexcept { return backend == Backend::nccl ? "nccl" : "mpi"; }

std::unique_ptr<AllreduceBackend> make_backend(Backend backend, Communicator& world, int group_size)
{
    if (backend == Backend::nccl) return make_nccl_backend(world, group_size);
    if (group_size < 1 || world.size() % group_size != 0) {
        std::vector<int> divisors;
        for (int d = 1; d <= world.size(); ++d) {
            if (world.size() % d == 0) divisors.push_back(d);
        }
        SHARDRUN_THROW(UsageError, fmt::format("bench allreduce --group {}: does not divide the {} ranks; use one of {}",
                                               group_size, world.size(), fmt::join(divisors, ", ")));
    }
    return std::make_unique<HostBackend>(world.split(world.rank() / group_size, world.rank()));
}

std::vector<std::size_t> sizes_between(std::size_t min_bytes, std::size_t max_bytes, int factor)
{
    constexpr std::size_t word = sizeof(float);
    std::vector<std::size_t> sizes;
    for (std::size_t bytes = min_bytes; bytes <= max_bytes;) {
        sizes.push_back(bytes / word * word);
        // Stop before the next size would pass max (or overflow).
        if (factor < 2 || bytes > max_bytes / static_cast<std::size_t>(factor)) break;
        bytes *= static_cast<std::size_t>(factor);
    }
    return sizes;
}

double allreduce_bus_factor(int ranks) noexcept { return ranks > 0 ? 2.0 * (ranks - 1) / ranks : 0.0; }

AllreduceRow measure_allreduce(AllreduceBackend& backend, Communicator& world, std::size_t count, int iters,
                               int warmup)
{
    backend.reserve(count);
    fill_send(backend.host_send(count), backend.group().rank());
    backend.upload(count);
    const double seconds = world.allreduce_value(timed_loop(backend, world, count, iters, warmup), ReduceOp::max);
    const auto wrong = world.allreduce_value(checked_allreduce(backend, count), ReduceOp::sum);
    AllreduceRow row;
    row.bytes = count * sizeof(float);
    row.count = count;
    row.time_us = seconds * 1e6;
    row.algbw = static_cast<double>(row.bytes) / seconds / 1e9;
    row.busbw = row.algbw * allreduce_bus_factor(backend.group().size());
    row.wrong = wrong;
    return row;
}

std::vector<AllreduceRow> run_allreduce(AllreduceBackend& backend, Communicator& world,
                                        const AllreduceOptions& options,
                                        const std::function<void(const AllreduceRow&)>& on_row)
{
    const auto sizes = sizes_between(options.min_bytes, options.max_bytes, options.factor);
    // The largest buffers at once, as nccl-tests allocates: growing them size by size would
    // time every size on freshly mapped memory.
    if (!sizes.empty()) backend.reserve(sizes.back() / sizeof(float));
    std::vector<AllreduceRow> rows;
    for (const auto bytes : sizes) {
        rows.push_back(measure_allreduce(backend, world, bytes / sizeof(float), options.iters, options.warmup));
        if (on_row) on_row(rows.back());
    }
    return rows;
}

double average_busbw(const std::vector<AllreduceRow>& rows) noexcept
{
    double sum = 0;
    for (const auto& row : rows) sum += row.busbw;
    return rows.empty() ? 0.0 : sum / static_cast<double>(rows.size());
}

std::string allreduce_table_header(const AllreduceOptions& options, int ranks)
{
    const int group = group_size_of(options, ranks);
    std::string out = fmt::format("# shardrun bench allreduce: backend {}, {} ranks, {} group{} of {}\n",
                                  backend_name(options.backend), ranks, ranks / group, ranks / group == 1 ? "" : "s",
                                  group);
    out += fmt::format("# minBytes {} maxBytes {} step: {}(factor) warmup iters: {} iters: {} validation: 1\n#\n",
                       options.min_bytes, options.max_bytes, options.factor, options.warmup, options.iters);
    out += fmt::format("# {:>50}\n", "out-of-place");
    out += fmt::format("# {:>10}  {:>12}  {:>8}  {:>8}  {:>6}  {:>6}  {:>6}\n", "size", "count", "type", "time",
                       "algbw", "busbw", "#wrong");
    out += fmt::format("# {:>10}  {:>12}  {:>8}  {:>8}  {:>6}  {:>6}\n", "(B)", "(elements)", "", "(us)", "(GB/s)",
                       "(GB/s)");
    return out;
}

std::string allreduce_table_row(const AllreduceRow& row)
{
    return fmt::format("{:>12}  {:>12}  {:>8}  {:>8}  {:>6.2f}  {:>6.2f}  {:>6}\n", row.bytes, row.count, "float",
                       format_time(row.time_us), row.algbw, row.busbw, row.wrong);
}

std::string allreduce_table_footer(const std::vector<AllreduceRow>& rows)
{
    std::uint64_t wrong = 0;
    for (const auto& row : rows) wrong += row.wrong;
    return fmt::format("# Out of bounds values : {} {}\n# Avg bus bandwidth    : {:g}\n#\n", wrong,
                       wrong == 0 ? "OK" : "FAILED", average_busbw(rows));
}

std::string allreduce_json(const AllreduceOptions& options, int ranks, const std::vector<AllreduceRow>& rows)
{
    nlohmann::ordered_json out = {
        {"collective", "allreduce"},     {"backend", backend_name(options.backend)},
        {"ranks", ranks},                {"group", group_size_of(options, ranks)},
        {"min_bytes", options.min_bytes}, {"max_bytes", options.max_bytes},
        {"factor", options.factor},      {"iters", options.iters},
        {"warmup", options.warmup},      {"type", "float"},
        {"op", "sum"},                   {"avg_busbw", average_busbw(rows)},
    };
    out["rows"] = nlohmann::ordered_json::array();
    for (const auto& row : rows) {
        out["rows"].push_back({{"size", row.bytes}, {"count", row.count}, {"type", "float"},
                               {"time_us", row.time_us}, {"algbw", row.algbw}, {"busbw", row.busbw},
                               {"wrong", row.wrong}});
    }
    return out.dump(2) + "\n";
}

}  // namespace shardrun::bench

#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "collectives/communicator.hpp"

namespace shardrun::bench {

/** Communicator backends `bench allreduce` can measure. */
enum class Backend { mpi, nccl };

/** What one `bench allreduce` run measures. */
struct AllreduceOptions {
    Backend backend = Backend::mpi;
    std::size_t min_bytes = 8;
    std::size_t max_bytes = std::size_t{256} << 20;
    int factor = 2;
    int iters = 20;
    int warmup = 5;
    /** ranks per group; 0: the whole world is one group */
    int group = 0;
};

/** One size: the columns of an nccl-tests out-of-place row. */
struct AllreduceRow {
    std::size_t bytes = 0;
    std::size_t count = 0;
    /** average per iteration, the slowest rank's */
    double time_us = 0;
    double algbw = 0;
    double busbw = 0;
    /** elements that differ from the expected sum, over every rank */
    std::uint64_t wrong = 0;
};

/**
 * Where the allreduces run: a group communicator and buffers in the memory it works on.
 * Host backends hand out their buffers as the host spans; a device backend copies between
 * its host staging and device buffers in upload()/download() and waits for its stream in
 * synchronize(), so the measuring code is the same for both.
 */
class AllreduceBackend {
public:
    virtual ~AllreduceBackend() = default;
    virtual collectives::Communicator& group() = 0;
    /** Makes room for `count` floats in each buffer (called before the first use of a size). */
    virtual void reserve(std::size_t count) = 0;
    /** Host view of the first `count` send / recv floats. */
    virtual std::span<float> host_send(std::size_t count) = 0;
    virtual std::span<float> host_recv(std::size_t count) = 0;
    /** The buffers the collective reads and writes (device memory for a device backend). */
    virtual const void* send_buffer() = 0;
    virtual void* recv_buffer() = 0;
    virtual void upload(std::size_t /*count*/) {}
    virtual void download(std::size_t /*count*/) {}
    /** Returns once every started allreduce has finished. */
    virtual void synchronize() {}
};

/**
 * The backend of `backend` over groups of `group_size` consecutive ranks of `world`
 * (world.split(rank / group_size, rank)). Collective over `world`.
 * @throws UsageError when group_size does not divide the ranks or the backend is not in this build
 */
std::unique_ptr<AllreduceBackend> make_backend(Backend backend, collectives::Communicator& world, int group_size);

/** min, min*factor, ... up to max (rounded down to whole floats); one size when min == max. */
std::vector<std::size_t> sizes_between(std::size_t min_bytes, std::size_t max_bytes, int factor);

/**
 * Measures one size: `warmup` untimed and `iters` timed out-of-place float sums on every
 * group at once, then one more on fresh buffers that is checked element by element.
 * Collective over `world` (every group's members call it with the same arguments).
 */
AllreduceRow measure_allreduce(AllreduceBackend& backend, collectives::Communicator& world, std::size_t count,
                               int iters, int warmup);

/**
 * Every size of `options`, in order. Collective over `world`.
 * @param on_row  called with each row as soon as it is measured (to print it)
 */
std::vector<AllreduceRow> run_allreduce(AllreduceBackend& backend, collectives::Communicator& world,
                                        const AllreduceOptions& options,
                                        const std::function<void(const AllreduceRow&)>& on_row = {});

/** nccl-tests' bus bandwidth factor of allreduce, 2(n-1)/n. */
double allreduce_bus_factor(int ranks) noexcept;

/** Mean busbw of `rows` (nccl-tests' "Avg bus bandwidth"). */
double average_busbw(const std::vector<AllreduceRow>& rows) noexcept;

/** The table in nccl-tests' layout: its header lines, ... */
std::string allreduce_table_header(const AllreduceOptions& options, int ranks);
/** ... one line per size ... */
std::string allreduce_table_row(const AllreduceRow& row);
/** ... and the out-of-bounds and "# Avg bus bandwidth" lines. */
std::string allreduce_table_footer(const std::vector<AllreduceRow>& rows);

/** One JSON object: the options and one object per row. */
std::string allreduce_json(const AllreduceOptions& options, int ranks, const std::vector<AllreduceRow>& rows);

/** "mpi" or "nccl". */
const char* backend_name(Backend backend) noexcept;

}  // namespace shardrun::bench

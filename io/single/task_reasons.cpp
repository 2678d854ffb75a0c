#include "io/single/task_reasons.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <numeric>

#include "io/errors.hpp"
#include "io/single/native_comm.hpp"

namespace shardrun::io::single {
namespace {

void put(std::vector<char>& out, const void* data, std::size_t bytes)
{
    const auto* begin = static_cast<const char*>(data);
    out.insert(out.end(), begin, begin + bytes);
}

void put_text(std::vector<char>& out, const std::string& text)
{
    const auto length = static_cast<std::uint64_t>(text.size());
    put(out, &length, sizeof length);
    put(out, text.data(), text.size());
}

/** Rows as bytes: per row the id, then each text as its length and its bytes (ranks share one ABI). */
std::vector<char> pack(const TaskRows& rows)
{
    std::vector<char> out;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        put(out, &rows.task_id[i], sizeof rows.task_id[i]);
        put_text(out, rows.message[i]);
        put_text(out, rows.attempt_log[i]);
        put(out, &rows.gpu[i], sizeof rows.gpu[i]);
    }
    return out;
}

class Reader {
public:
    explicit Reader(const std::vector<char>& bytes) : bytes_(bytes) {}
    bool done() const noexcept { return at_ >= bytes_.size(); }
    std::uint64_t number()
    {
        std::uint64_t value = 0;
        std::memcpy(&value, bytes_.data() + at_, sizeof value);
        at_ += sizeof value;
        return value;
    }
    TaskGpuUsage gpu()
    {
        TaskGpuUsage value;
        std::memcpy(&value, bytes_.data() + at_, sizeof value);
        at_ += sizeof value;
        return value;
    }
    std::string text()
    {
        const auto length = static_cast<std::size_t>(number());
        std::string value(bytes_.data() + at_, length);
        at_ += length;
        return value;
    }

private:
    const std::vector<char>& bytes_;
    std::size_t at_ = 0;
};

TaskReasons unpack_sorted(const std::vector<char>& bytes)
{
    TaskReasons all;
    for (Reader reader(bytes); !reader.done();) {
        all.task_id.push_back(reader.number());
        all.message.push_back(reader.text());
        all.attempt_log.push_back(reader.text());
        all.gpu.push_back(reader.gpu());
    }
    std::vector<std::size_t> order(all.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return all.task_id[a] < all.task_id[b]; });
    TaskReasons sorted;
    for (const auto i : order) {
        sorted.task_id.push_back(all.task_id[i]);
        sorted.message.push_back(std::move(all.message[i]));
        sorted.attempt_log.push_back(std::move(all.attempt_log[i]));
        sorted.gpu.push_back(all.gpu[i]);
    }
    return sorted;
}

}  // namespace

TaskReasons gather_reasons(base::Communicator& comm, const TaskRows& rows)
{
    const int rank = comm.rank();
    const auto local = pack(rows);
    // Every rank learns every size, so that all of them refuse together instead of one
    // leaving the others blocked in the gather.
    const auto sizes = comm.allgather_value<std::uint64_t>(local.size());
    const auto total = std::accumulate(sizes.begin(), sizes.end(), std::uint64_t{0});
    if (total > static_cast<std::uint64_t>(INT_MAX)) {
        SHARDRUN_THROW(WriteError, "the task reasons and attempt logs of one single-layout commit exceed 2 GiB; "
                                   "use layout: shards for this job");
    }
    std::vector<int> counts(sizes.begin(), sizes.end()), offsets(counts.size(), 0);
    std::exclusive_scan(counts.begin(), counts.end(), offsets.begin(), 0);
    std::vector<char> all(rank == 0 ? static_cast<std::size_t>(total) : 0);
    MPI_Gatherv(local.data(), static_cast<int>(local.size()), MPI_CHAR, all.data(), counts.data(), offsets.data(),
                MPI_CHAR, 0, native_comm(comm));
    return rank == 0 ? unpack_sorted(all) : TaskReasons{};
}

}  // namespace shardrun::io::single

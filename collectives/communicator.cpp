#include "collectives/communicator.hpp"

#include <algorithm>
#include <mutex>
#include <new>
#include <vector>
#include <stdexcept>

namespace shardrun::collectives {

std::size_t size_of(DataType type) noexcept
{
    switch (type) {
    case DataType::uint8: return 1;
    case DataType::int32:
    case DataType::uint32:
    case DataType::float32: return 4;
    case DataType::int64:
    case DataType::uint64:
    case DataType::float64: return 8;
    }
    return 1;
}

Request& Request::operator=(Request&& other) noexcept
{
    if (this != &other) {
        if (operation_) operation_->wait();
        operation_ = std::move(other.operation_);
    }
    return *this;
}

Request::~Request()
{
    // A request dropped unfinished would leave the backend writing into freed buffers.
    if (operation_) operation_->wait();
}

void Request::wait()
{
    if (!operation_) return;
    operation_->wait();
    operation_.reset();
}

bool Request::test()
{
    if (!operation_) return true;
    if (!operation_->test()) return false;
    operation_.reset();
    return true;
}

namespace {

// Never destroyed: an abandoned operation outlives every static destructor (MPI may complete it
// during MPI_Finalize), and the pointer keeps what it holds reachable.
struct KeptAlive {
    std::mutex mutex;
    std::vector<std::shared_ptr<const void>> objects;
};
KeptAlive& kept_alive()
{
    static auto* kept = new KeptAlive;
    return *kept;
}

}  // namespace

void Request::abandon() noexcept
{
    if (!operation_) return;
    if (operation_->release_unwaited()) {
        operation_.reset();
        return;
    }
    try {
        keep_until_exit(std::shared_ptr<PendingOperation>(std::move(operation_)));
    } catch (...) {
        (void)operation_.release();  // no memory for the keeper on the way out: leaking is the safe choice
    }
}

void keep_until_exit(std::shared_ptr<const void> kept) noexcept
{
    auto& alive = kept_alive();
    try {
        const std::lock_guard lock(alive.mutex);
        alive.objects.push_back(std::move(kept));
    } catch (...) {
        static_cast<void>(new (std::nothrow) std::shared_ptr<const void>(std::move(kept)));  // never freed, on purpose
    }
}

void wait_all(std::span<Request> requests)
{
    for (auto& request : requests) request.wait();
}

bool Communicator::iprobe(int /*source*/, int /*tag*/)
{
    throw std::logic_error("iprobe: this communicator's backend cannot probe for messages");
}

std::vector<std::string> allgather_strings(Communicator& comm, const std::string& mine)
{
    const auto lengths = comm.allgather_value<std::uint64_t>(mine.size());
    const auto longest = *std::max_element(lengths.begin(), lengths.end());
    std::string padded = mine;
    padded.resize(longest);
    std::string all(longest * lengths.size(), '\0');
    comm.allgather(std::span<const char>(padded), std::span<char>(all));
    std::vector<std::string> strings;
    for (std::size_t r = 0; r < lengths.size(); ++r) strings.push_back(all.substr(r * longest, lengths[r]));
    return strings;
}

}  // namespace shardrun::collectives

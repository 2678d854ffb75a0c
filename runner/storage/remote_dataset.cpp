#include "runner/storage/remote_dataset.hpp"

#include <future>

#include "io/input/ranged_file_driver.hpp"
#include "runner/storage/object_reads.hpp"
#include "runner/storage/rclone.hpp"
#include "runner/storage/remote_input.hpp"

namespace shardrun::storage {

io::DatasetInfo describe_remote_dataset(const std::string& input)
{
    const auto [remote, dataset] = split_remote_input(input);
    // The size and the first page side by side: each rclone call costs a process start and a round trip.
    auto size = std::async(std::launch::async, [&remote = remote] { return object_size(remote); });
    std::string head;
    try {
        head = read_object_range(remote, 0, io::RangedFileAccess::page_size);
    } catch (const TransferError&) {
        size.wait();  // the size's own error (no such object) says more, and the thread must end first
        size.get();
        throw;
    }
    io::RangedFile file{remote.url, size.get(), std::move(head), [&remote = remote](std::uint64_t offset, std::uint64_t count) {
                            return read_object_range(remote, offset, count);
                        }};
    return io::describe_dataset(file, dataset);
}

}  // namespace shardrun::storage

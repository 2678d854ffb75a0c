#include "runner/storage/object_reads.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "runner/process/unique_fd.hpp"
#include "runner/storage/rclone.hpp"
#include "runner/storage/transfer_failure.hpp"

namespace shardrun::storage {
namespace {

std::string read_all(int fd)
{
    std::string text;
    char buffer[65536];
    for (off_t offset = 0;;) {
        const auto n = pread(fd, buffer, sizeof buffer, offset);
        if (n < 0) SHARDRUN_THROW(TransferError, "cannot read rclone's output back", exit_bad_input);
        if (n == 0) return text;
        text.append(buffer, static_cast<std::size_t>(n));
        offset += n;
    }
}

/** rclone's stdout, kept in memory (a memfd) rather than in a file of the scratch folder. */
std::string rclone_stdout(const std::vector<std::string>& args, const RemotePath& remote)
{
    const process::UniqueFd out(memfd_create("shardrun-rclone-stdout", MFD_CLOEXEC));
    if (out.get() < 0) SHARDRUN_THROW(TransferError, "cannot read " + remote.url + ": memfd_create failed", exit_bad_input);
    const auto result = run_rclone(args, 0, "", out.get());
    if (!result.ok()) {
        SHARDRUN_THROW(TransferError, transfer_failure("read " + remote.url, result), exit_bad_input);
    }
    return read_all(out.get());
}

}  // namespace

namespace {

nlohmann::json object_entry(const RemotePath& remote)
{
    const auto text = rclone_stdout({"lsjson", "--stat", remote.rclone}, remote);
    // rclone reports a missing key of a bucket as an empty folder ("IsDir": true, "Size": -1).
    auto entry = nlohmann::json::parse(text, nullptr, false);
    if (entry.is_discarded() || !entry.is_object() || entry.value("IsDir", true) || entry.value("Size", -1LL) < 0) {
        SHARDRUN_THROW(TransferError, "there is no object " + remote.url + "; check the URL", exit_bad_input);
    }
    return entry;
}

}  // namespace

std::uint64_t object_size(const RemotePath& remote)
{
    return object_entry(remote).value("Size", 0ULL);
}

std::string object_stamp(const RemotePath& remote)
{
    const auto entry = object_entry(remote);
    return std::to_string(entry.value("Size", 0ULL)) + ":" + entry.value("ModTime", std::string());
}

std::string read_object_range(const RemotePath& remote, std::uint64_t offset, std::uint64_t count)
{
    // --no-traverse: a HEAD of the key, not a listing of its folder (which may hold thousands of objects).
    return rclone_stdout({"cat", "--no-traverse", "--offset", std::to_string(offset), "--count", std::to_string(count),
                          remote.rclone},
                         remote);
}

}  // namespace shardrun::storage

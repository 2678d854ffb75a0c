#include "runner/storage/object_text_upload.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include "runner/process/unique_fd.hpp"
#include "runner/storage/rclone.hpp"
#include "runner/storage/transfer_failure.hpp"

namespace shardrun::storage {

void upload_text(const std::string& text, const std::string& remote, const std::vector<std::string>& flags)
{
    const process::UniqueFd in(memfd_create("shardrun-rclone-stdin", MFD_CLOEXEC));
    if (in.get() < 0 || write(in.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
        SHARDRUN_THROW(TransferError, "cannot upload " + remote + ": memfd_create or its write failed");
    }
    std::vector<std::string> args{"rcat", remote};
    args.insert(args.end(), flags.begin(), flags.end());
    // rclone's stdin is opened by this name in the spawned child before it execs (and before
    // descriptors above stderr are closed), so the memfd is still there; a fresh open reads from 0.
    const auto result = run_rclone(args, 0, "", -1, "/proc/self/fd/" + std::to_string(in.get()));
    if (!result.ok()) SHARDRUN_THROW(TransferError, transfer_failure("upload " + remote, result));
}

}  // namespace shardrun::storage

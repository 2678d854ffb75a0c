#include "runner/storage/staged_input.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <fstream>

#include "io/output_spec.hpp"
#include "runner/errors.hpp"
#include "runner/process/unique_fd.hpp"
#include "runner/storage/local_mirror.hpp"
#include "runner/storage/rclone.hpp"
#include "runner/storage/transfer_failure.hpp"
#include "runner/storage/remote_input.hpp"

namespace fs = std::filesystem;

namespace shardrun::storage {
namespace {

/** What the ranks of one launch share on a node and two launches do not; empty when unknown. */
std::string launch_key()
{
    if (const char* pmix = std::getenv("PMIX_NAMESPACE"); pmix != nullptr && *pmix != '\0') return pmix;
    const char* job = std::getenv("SLURM_JOB_ID");
    const char* step = std::getenv("SLURM_STEP_ID");
    if (job != nullptr && step != nullptr) return std::string(job) + "." + step;
    return "";
}

std::string read_text(const fs::path& file)
{
    std::ifstream in(file);
    std::string text;
    std::getline(in, text);
    return text;
}

}  // namespace

std::string stage_object(const RemotePath& remote, const std::function<void(const std::string&)>& after_download)
{
    const auto dir = fs::path(scratch_dir()) / "shardrun-input" / io::sha256_hex(remote.url).substr(0, 16);
    const auto local = dir / remote.name;
    std::error_code error;
    fs::create_directories(dir, error);
    const process::UniqueFd lock(open((dir / "lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
    if (lock.get() < 0 || flock(lock.get(), LOCK_EX) != 0) {
        SHARDRUN_THROW(TransferError, "cannot stage " + remote.url + " in " + dir.string() + "; set SHARDRUN_SCRATCH to a writable folder");
    }
    const auto key = launch_key();
    if (key.empty() || read_text(dir / "launch") != key || !fs::exists(local, error)) {
        // Another launch's copy goes first: rclone's copyto onto it, with the bucket unreachable,
        // reports "Source doesn't exist or is a directory and destination is a file", not why.
        fs::remove(local, error);
        const auto result = run_rclone({"copyto", remote.rclone, local.string()});
        if (!result.ok()) {
            SHARDRUN_THROW(TransferError, transfer_failure("download " + remote.url, result), exit_bad_input);
        }
        // rclone takes a key that names nothing for an empty folder: it copies nothing and exits 0.
        if (!fs::is_regular_file(local, error)) {
            SHARDRUN_THROW(TransferError, "there is no object " + remote.url + "; check the URL", exit_bad_input);
        }
        if (after_download) after_download(local.string());
        std::ofstream(dir / "launch") << key << "\n";
    }
    return local.string();
}

std::string stage_input(const std::string& input)
{
    const auto [remote, dataset] = split_remote_input(input);
    return stage_object(remote) + ":" + dataset;
}

}  // namespace shardrun::storage

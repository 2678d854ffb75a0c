#include "runner/storage/remote_copy.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "io/errors.hpp"
#include "io/layout/element_manifest.hpp"
#include "io/layout/output_layout.hpp"
#include "runner/storage/claim_end.hpp"
#include "runner/storage/local_mirror.hpp"
#include "runner/storage/rclone.hpp"
#include "runner/storage/writer_claim.hpp"

namespace fs = std::filesystem;

namespace shardrun::storage {

namespace {

/** Why a remote path's bucket cannot hold it, when it is that: "; the bucket b does not exist". */
std::string bucket_problem(const RemotePath& remote)
{
    // ":s3:bucket/key" -> ":s3:bucket": rclone lists a missing folder as empty, but not a missing bucket.
    const auto colon = remote.rclone.rfind(':', remote.rclone.find('/'));
    if (remote.rclone.rfind(":s3:", 0) != 0 && remote.rclone.rfind(":gcs:", 0) != 0) return {};
    const auto slash = remote.rclone.find('/', colon);
    if (slash == std::string::npos) return {};
    const auto bucket = remote.rclone.substr(0, slash);
    const auto result = run_rclone({"lsf", "--max-depth", "1", "--dirs-only", bucket, "--retries", "1"});
    if (result.ok()) return {};
    return result.not_found() ? "; the bucket " + bucket.substr(colon + 1) + " does not exist" : "; " + result.error;
}

/**
 * The errors that ended the elements' last runs (a full disk), which their writer claims keep in
 * the bucket, written where status reads them beside a local output: each element's lock file.
 */
void claim_ends_to_locks(const std::string& local)
{
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(io::layout::shards_dir(local), error)) {
        const long index = io::layout::element_index(entry.path().filename().string());
        if (index < 0 || !entry.is_directory()) continue;
        std::ifstream claim(entry.path() / writer_claim_name);
        if (!claim) continue;
        const std::string text((std::istreambuf_iterator<char>(claim)), std::istreambuf_iterator<char>());
        claim_end_to_lock(text, local, static_cast<int>(index));
    }
}

/** Every copy's (local path, URL) this process opened, kept after the copy goes: for messages. */
std::vector<std::pair<std::string, std::string>>& opened_copies()
{
    static std::vector<std::pair<std::string, std::string>> copies;
    return copies;
}

}  // namespace

std::string named_by_remotes(const std::string& text)
{
    std::string out = text;
    for (const auto& [local, url] : opened_copies()) {
        for (auto at = out.find(local); at != std::string::npos; at = out.find(local, at + url.size())) {
            out.replace(at, local.size(), url);
        }
    }
    return out;
}

RemoteCopy::RemoteCopy(RemotePath remote) : remote_(std::move(remote))
{
    std::error_code error;
    fs::create_directories(scratch_dir(), error);
    std::string pattern = (fs::path(scratch_dir()) / "shardrun-copy-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
        SHARDRUN_THROW(TransferError, "cannot create a folder in " + scratch_dir() + "; set SHARDRUN_SCRATCH to a writable folder", exit_bad_input);
    }
    dir_ = pattern;
    local_ = (fs::path(dir_) / remote_.name).string();
    opened_copies().emplace_back(local_, remote_.url);
    const auto shards = io::layout::shards_dir(remote_.name).string();
    const std::vector<std::string> entries{remote_.name, shards};
    try {
        download(remote_.parent, dir_, {exact_pattern(remote_.name), exact_pattern(shards) + "/**"});
        before_ = folder_state(dir_, entries);
    } catch (...) {
        fs::remove_all(dir_, error);
        throw;
    }
    if (before_.empty()) {
        fs::remove_all(dir_, error);
        SHARDRUN_THROW(io::OutputError, remote_.url + ": no such output (neither " + remote_.name + " nor " + shards +
                                            "/ is in the bucket" + bucket_problem(remote_) + "); check the URL");
    }
    claim_ends_to_locks(local_);
}

RemoteCopy::~RemoteCopy()
{
    for (const int fd : locks_) close(fd);
    std::error_code error;
    fs::remove_all(dir_, error);
}

std::string RemoteCopy::named(const std::string& text) const { return named_by_remotes(text); }

void RemoteCopy::hold_unfinished()
{
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(io::layout::shards_dir(local_), error)) {
        const auto name = entry.path().filename().string();
        if (!entry.is_directory()) continue;
        const long index = io::layout::element_index(name);
        if (index < 0) continue;
        const auto manifest = io::read_manifest(local_, static_cast<int>(index));
        if (manifest && manifest->finished != 0) continue;
        const int fd = open(io::layout::lock_path(local_, static_cast<int>(index)).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) continue;
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
            locks_.push_back(fd);
        } else {
            close(fd);
        }
    }
}

void RemoteCopy::publish()
{
    publish_changes(dir_, remote_.parent, before_, folder_state(dir_, {remote_.name, io::layout::shards_dir(remote_.name).string()}));
}

std::unique_ptr<RemoteCopy> open_remote_copy(std::string& path)
{
    auto remote = parse_remote(path);
    if (!remote) return nullptr;
    auto copy = std::make_unique<RemoteCopy>(std::move(*remote));
    path = copy->local_path();
    return copy;
}

}  // namespace shardrun::storage

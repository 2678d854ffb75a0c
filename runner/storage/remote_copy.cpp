#include "runner/storage/remote_copy.hpp"

#include <cstdlib>
#include <filesystem>

#include "io/errors.hpp"
#include "runner/storage/rclone.hpp"

namespace fs = std::filesystem;

namespace shardrun::storage {

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
    const std::vector<std::string> entries{remote_.name, remote_.name + ".shards"};
    try {
        download(remote_.parent, dir_, {exact_pattern(remote_.name), exact_pattern(remote_.name + ".shards") + "/**"});
        before_ = folder_state(dir_, entries);
    } catch (...) {
        fs::remove_all(dir_, error);
        throw;
    }
    if (before_.empty()) {
        fs::remove_all(dir_, error);
        SHARDRUN_THROW(io::OutputError, remote_.url + ": no such output (neither " + remote_.name + " nor " + remote_.name +
                                            ".shards/ is in the bucket); check the URL");
    }
}

RemoteCopy::~RemoteCopy()
{
    std::error_code error;
    fs::remove_all(dir_, error);
}

std::string RemoteCopy::named(const std::string& text) const
{
    std::string out = text;
    for (auto at = out.find(local_); at != std::string::npos; at = out.find(local_, at + remote_.url.size())) {
        out.replace(at, local_.size(), remote_.url);
    }
    return out;
}

void RemoteCopy::publish()
{
    publish_changes(dir_, remote_.parent, before_, folder_state(dir_, {remote_.name, remote_.name + ".shards"}));
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

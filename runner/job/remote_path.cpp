#include "runner/job/remote_path.hpp"

#include "runner/errors.hpp"

namespace shardrun::storage {
namespace {

struct Scheme {
    const char* prefix;
    const char* backend;  // rclone's on-the-fly remote; empty: the rest names a configured remote
};

constexpr Scheme schemes[] = {{"s3://", ":s3:"}, {"gs://", ":gcs:"}, {"gcs://", ":gcs:"}, {"rclone://", ""}};

}  // namespace

bool is_remote(const std::string& path)
{
    for (const auto& scheme : schemes) {
        if (path.rfind(scheme.prefix, 0) == 0) return true;
    }
    return false;
}

std::optional<RemotePath> parse_remote(const std::string& path)
{
    for (const auto& scheme : schemes) {
        const std::string prefix = scheme.prefix;
        if (path.rfind(prefix, 0) != 0) continue;
        const auto rest = path.substr(prefix.size());
        const std::string backend = scheme.backend;
        const auto slash = rest.find('/');
        const auto last = rest.rfind('/');
        if (backend.empty()) {
            const auto colon = rest.find(':');
            if (colon == std::string::npos || colon == 0 || colon + 1 == rest.size() || rest.back() == '/') {
                SHARDRUN_THROW(UsageError, "'" + path + "' is not rclone://REMOTE:path/file (REMOTE: a remote of your "
                                           "rclone configuration, see `rclone listremotes`)");
            }
            const auto cut = std::max(colon, last == std::string::npos ? colon : last);
            return RemotePath{path, rest, rest.substr(cut + 1), rest.substr(0, cut == colon ? cut + 1 : cut)};
        }
        if (slash == std::string::npos || slash == 0 || rest.back() == '/') {
            SHARDRUN_THROW(UsageError, "'" + path + "' names no object; write " + prefix + "BUCKET/prefix/run.h5");
        }
        return RemotePath{path, backend + rest, rest.substr(last + 1), backend + rest.substr(0, last)};
    }
    return std::nullopt;
}

RemotePath with_suffix(const RemotePath& remote, const std::string& suffix)
{
    return RemotePath{remote.url + suffix, remote.rclone + suffix, remote.name + suffix, remote.parent};
}

}  // namespace shardrun::storage

#include "runner/storage/local_mirror.hpp"

#include <cstdlib>
#include <filesystem>

#include "io/output_spec.hpp"

namespace shardrun::storage {

std::string scratch_dir()
{
    for (const char* name : {"SHARDRUN_SCRATCH", "TMPDIR"}) {
        const char* value = std::getenv(name);
        if (value != nullptr && *value != '\0') return value;
    }
    return "/tmp";
}

std::string local_mirror(const RemotePath& remote)
{
    const auto key = io::sha256_hex(remote.url).substr(0, 16);
    return (std::filesystem::path(scratch_dir()) / "shardrun-remote" / key / remote.name).string();
}

}  // namespace shardrun::storage

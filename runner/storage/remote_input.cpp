#include "runner/storage/remote_input.hpp"

#include "runner/errors.hpp"

namespace shardrun::storage {

RemoteInput split_remote_input(const std::string& input)
{
    const auto split = input.rfind(":/");
    const auto scheme_end = input.find("://");
    if (split == std::string::npos || split == scheme_end) {
        SHARDRUN_THROW(UsageError, "'" + input + "' names no dataset; write s3://bucket/file.h5:/dataset");
    }
    const auto remote = parse_remote(input.substr(0, split));
    if (!remote) SHARDRUN_THROW(UsageError, "'" + input + "' is not in object storage");
    return {*remote, input.substr(split + 1)};
}

}  // namespace shardrun::storage

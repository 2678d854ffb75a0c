#pragma once

#include <string>

#include "runner/job/remote_path.hpp"

namespace shardrun::storage {

/** data.input in object storage, split: the object and the dataset in it. */
struct RemoteInput {
    RemotePath remote;    ///< s3://bucket/in/data.h5
    std::string dataset;  ///< "/images" (with its leading '/')
};

/**
 * Splits "s3://bucket/in/data.h5:/images" at its last ":/".
 * @throws UsageError  when no dataset is named or the URL is malformed
 */
RemoteInput split_remote_input(const std::string& input);

}  // namespace shardrun::storage

#pragma once

#include <string>

#include "runner/storage/rclone.hpp"

namespace shardrun::storage {

/**
 * Every failed rclone call's one message (issue 39: plan and status said it two ways):
 * "cannot <what>: rclone exited N: <cause>; check the credentials, the endpoint (<the endpoint
 * variables set>) and that the bucket exists". The docs pointer follows from the TransferError
 * it is thrown in (run/error_message.hpp). Defined in rclone.cpp, beside the variables' mapping.
 */
std::string transfer_failure(const std::string& what, const RcloneResult& result);

}  // namespace shardrun::storage

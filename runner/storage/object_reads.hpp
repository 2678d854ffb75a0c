#pragma once

#include <cstdint>
#include <string>

#include "runner/job/remote_path.hpp"

/**
 * @file
 * Reading part of one object in place, for what needs a few bytes of a large input (`plan` and
 * `submit` reading its HDF5 metadata): rclone's output comes back through memory, so nothing
 * is written to the scratch folder but rclone's error log, removed after each call.
 */
namespace shardrun::storage {

/**
 * The length of the object `remote` (`rclone lsjson --stat`).
 * @throws TransferError (exit 2) when there is no such object or it cannot be reached
 */
std::uint64_t object_size(const RemotePath& remote);

/**
 * What identifies this version of the object: "<size>:<modification time>" (`rclone lsjson --stat`).
 * @throws TransferError (exit 2) as object_size
 */
std::string object_stamp(const RemotePath& remote);

/**
 * Bytes [offset, offset + count) of the object `remote` (`rclone cat --offset --count`, a ranged
 * GET); fewer when the object ends first.
 * @throws TransferError (exit 2) when it cannot be read
 */
std::string read_object_range(const RemotePath& remote, std::uint64_t offset, std::uint64_t count);

}  // namespace shardrun::storage

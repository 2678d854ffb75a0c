#pragma once

#include <cstdint>
#include <string>

#include "io/input/line_index.hpp"
#include "runner/job/remote_path.hpp"

namespace shardrun::storage {

/** The object beside a bucket's line input that holds its index: `<url>.shardrun-index`. */
RemotePath remote_index_of(const RemotePath& input);

/**
 * The records of a line input in a bucket for `plan` and `submit`, from its index
 * (`<url>.shardrun-index`): the input's size and time are asked for (to tell a stale index) and
 * the index is read; the input itself is not downloaded. Without a current index the input is
 * staged once (stage_object), indexed, and the index stored beside it in the bucket.
 * @throws TransferError (exit 2) when the input cannot be read; io::InputError for a bad record
 */
std::uint64_t remote_line_records(const RemotePath& input, io::LineFormat format);

/**
 * Indexes `local`, the fresh copy of `input` stage_object downloaded: the index is saved beside
 * the copy and uploaded beside the input (stamped with the object's size and time), so later
 * plans and runs read it instead of scanning the file.
 */
void index_staged_copy(const RemotePath& input, const std::string& local, io::LineFormat format);

/** A bucket's line input staged on this node with its index; the local copy's path. */
std::string stage_line_input(const RemotePath& input, io::LineFormat format);

}  // namespace shardrun::storage

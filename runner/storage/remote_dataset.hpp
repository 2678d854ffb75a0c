#pragma once

#include <string>

#include "io/input/dataset_reader.hpp"

namespace shardrun::storage {

/**
 * Shape and dtype of data.input in object storage ("s3://bucket/in/data.h5:/images") without
 * downloading it: the object's size and its first 64 KiB are asked for at once (two rclone
 * calls side by side), and HDF5 reads any other page it needs by a ranged GET. A file whose
 * metadata sits at its start (what h5py and HDF5 write) costs those two calls; nothing is
 * written to the scratch folder. What `plan` and `submit` use; a run stages the file instead
 * (staged_input.hpp).
 * @throws UsageError  for a malformed URL; TransferError (exit 2) when the object cannot be
 *         read; io::InputError when it is no HDF5 file or has no such dataset
 */
io::DatasetInfo describe_remote_dataset(const std::string& input);

}  // namespace shardrun::storage

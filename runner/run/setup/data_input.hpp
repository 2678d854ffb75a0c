#pragma once

#include "io/input/dataset_reader.hpp"
#include "runner/job/job_spec.hpp"

namespace shardrun::run {

/**
 * Shape and dtype of `data.input: file.h5:/dataset`, read once before anything runs: its
 * first dimension gives the items, and the task kind checks the rest (TaskKind::validate).
 * An input still in object storage (s3://, gs://, rclone://) is described from its metadata by
 * ranged reads, never downloaded (storage/remote_dataset.hpp).
 * @throws JobFileError at data.input's file:line:col when the file or dataset cannot be read,
 *         or the dataset is a scalar
 */
io::DatasetInfo read_input(const job::JobSpec& spec);

}  // namespace shardrun::run

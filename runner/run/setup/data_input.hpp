#pragma once

#include <memory>
#include <string>

#include "io/input/dataset_reader.hpp"
#include "io/input/item_ids.hpp"
#include "runner/job/job_spec.hpp"

namespace shardrun::run {

/**
 * Shape and dtype of `data.input: file.h5:/dataset`, read once before anything runs: its
 * first dimension gives the items, and the task kind checks the rest (TaskKind::validate).
 * An input still in object storage (s3://, gs://, rclone://) is described from its metadata by
 * ranged reads, never downloaded (storage/remote_dataset.hpp).
 * A line input (text, jsonl, csv) is `[records]` with dtype its format, from its index (built
 * and checked once, io/input/line_index.hpp; in a bucket, the index beside it); Parquet from
 * its footer (pyarrow).
 * @throws JobFileError at data.input's file:line:col when the file or dataset cannot be read,
 *         the dataset is a scalar, a record is malformed, or the file holds no records
 */
io::DatasetInfo read_input(const job::JobSpec& spec);

/**
 * data.input in object storage downloaded once per node (storage/staged_input.hpp); a line
 * input with its index. @return the local copy, as data.input names it ("...:/dataset" for HDF5)
 */
std::string stage_remote_input(const job::JobSpec& spec);

/**
 * Every record's `data.id` (nullptr without data.id, or for an input still in a bucket: `plan`
 * and `submit` do not download it).
 * @throws JobFileError at data.id's file:line:col naming the input's file:line of a bad record
 */
std::shared_ptr<const io::ItemIds> read_item_ids(const job::JobSpec& spec);

}  // namespace shardrun::run

#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runner/job/remote_path.hpp"

namespace shardrun::storage {

/**
 * What `logs` and `status` read of tasks' output kept in the bucket (TaskLogUploader): the task
 * folders <name>.tasks/<id>/ of `ids` are downloaded beside `local_path`, the output's copy
 * (RemoteCopy::local_path()), so that the readers find them where a local output keeps them.
 * More than a thousand ids take the whole <name>.tasks/ in one listing instead of a filter each.
 * Tasks with nothing kept are no error. @throws TransferError
 */
void fetch_task_logs(const RemotePath& remote, const std::string& local_path, const std::vector<std::uint64_t>& ids);

}  // namespace shardrun::storage

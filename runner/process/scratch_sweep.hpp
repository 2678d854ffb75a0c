#pragma once

#include <string>

namespace shardrun::process {

/**
 * @internal Removes from `tasks_dir` the scratch files and folders
 * (.scratch-<host>-<pid>-<start>-<slot>.{stdout,stderr,results,running}) that processes of this host left
 * when they were killed (kill -9, a node's OOM killer) before they could remove them. A live
 * process's are kept, as are those of other hosts sharing the folder, even one whose name
 * extends this one ("node-12" beside "node").
 */
void remove_dead_scratch(const std::string& tasks_dir, const std::string& host);

}  // namespace shardrun::process

#pragma once

#include <string>

namespace shardrun::run {

/**
 * Where a run's output is, kept side by side and never rewritten: the path as the user wrote it
 * (output.path: a file, or a bucket URL) and the local path io/ writes (the node's mirror of a
 * bucket output, runner/storage/local_mirror.hpp; else the same path). Messages name `user`.
 */
struct OutputPlace {
    std::string user;
    std::string local;
};

}  // namespace shardrun::run

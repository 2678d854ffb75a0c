#pragma once

#include <string>

#include "runner/errors.hpp"

namespace shardrun::tasks {

/**
 * Thrown by TaskKind::run when the kind can run no further task on this rank (an exec
 * worker that keeps dying, or never becomes ready). The rank loop does not count it as a
 * task failure: it commits what finished and lets the error end the rank; the task it
 * interrupted is left for --resume.
 */
class RankFatalError : public Error {
public:
    RankFatalError(const char* file, int line, const std::string& what) : Error(file, line, what) {}
};

}  // namespace shardrun::tasks

#pragma once

#include <iosfwd>
#include <span>
#include <string>
#include <string_view>

#include "runner/submit/submit_files.hpp"
#include "runner/submit/submit_options.hpp"

namespace shardrun::submit {

/**
 * One place `shardrun submit --to NAME` can send a job: everything about it in one entry,
 * defined in its own runner/submit/target_<name>.cpp and listed once in submit_targets.cpp.
 */
struct TargetEntry {
    std::string_view name;  ///< the --to value and the name of the target's folder in <output>.submit/
    /** The MPI ranks that run one array element together. */
    long (*ranks_per_element)(const SubmitOptions& options);
    /** true: the scripts start this very shardrun (a shared file system); false: the image's. */
    bool runs_this_executable;
    /** The target's own checks, after the common ones of validate(). @throws UsageError */
    void (*validate)(SubmitOptions& options);
    /** Writes the target's files into files.dir and submits them (or prints how); the exit code. */
    int (*submit)(const SubmitOptions& options, const SubmitFiles& files, std::ostream& out);
};

/** Every target, in the order `--help` and errors list them. */
std::span<const TargetEntry* const> targets();

/**
 * The target named `name` (the --to value).
 * @throws UsageError naming the allowed values
 */
const TargetEntry& find_target(const std::string& name);

/** "slurm, aws-batch or gcp-batch": the names, for help texts and errors. */
std::string target_names(std::string_view separator = ", ", std::string_view last_separator = " or ");

}  // namespace shardrun::submit

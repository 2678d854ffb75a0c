#pragma once

#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <boost/program_options/options_description.hpp>

#include "runner/submit/submit_files.hpp"
#include "runner/submit/submit_options.hpp"

namespace shardrun::submit {

/**
 * Options that one target or several bring to `shardrun submit` (a group of its --help): added once
 * however many targets list the group.
 */
struct OptionGroup {
    std::string_view title;  ///< the group's heading in --help ("Slurm (--to slurm)")
    void (*add)(boost::program_options::options_description& options, SubmitOptions& values);
};

/**
 * One place `shardrun submit --to NAME` can send a job: everything about it in one entry,
 * defined in its own runner/submit/target_<name>.cpp and listed once in submit_targets.cpp.
 */
struct TargetEntry {
    std::string_view name;  ///< the --to value and the name of the target's folder in <output>.submit/
    std::string_view title; ///< what `submit --help` calls it ("Google Cloud Batch")
    /** The MPI ranks that run one array element together. */
    long (*ranks_per_element)(const SubmitOptions& options);
    /** true: the scripts start this very shardrun (a shared file system); false: the image's. */
    bool runs_this_executable;
    /** The target's own checks, after the common ones of validate(). @throws UsageError */
    void (*validate)(SubmitOptions& options);
    /** Writes the target's files into files.dir and submits them (or prints how); the exit code. */
    int (*submit)(const SubmitOptions& options, const SubmitFiles& files, std::ostream& out);
    /** The option groups it brings, besides the common options of every target. */
    std::span<const OptionGroup* const> option_groups;
    /** Checks of the options against the job, before anything is written; none when null. @throws UsageError */
    void (*check_job)(const SubmitOptions& options, const job::JobSpec& spec) = nullptr;
    /**
     * true: the job copy is written staged (SubmitFiles::staged) and submit() moves it in place
     * only once the scheduler took the job, so a refused submission leaves an earlier one's
     * files as they were (a dry run writes them in place).
     */
    bool stages_files = false;
};

/** Every target, in the order `--help` and errors list them. */
std::span<const TargetEntry* const> targets();

/**
 * The target named `name` (the --to value).
 * @throws UsageError naming the allowed values
 */
const TargetEntry& find_target(const std::string& name);

/** The option groups of every target, each once, in the order of targets(). */
std::vector<const OptionGroup*> option_groups();

/** "Slurm / AWS Batch / Google Cloud Batch": the titles, for help texts. */
std::string target_titles(std::string_view separator = " / ");

/** "slurm, aws-batch or gcp-batch": the names, for help texts and errors. */
std::string target_names(std::string_view separator = ", ", std::string_view last_separator = " or ");

}  // namespace shardrun::submit

// Reading a job file, as one forward pipeline whose stages each read their input once:
//   1. job_tree.cpp      text -> the YAML tree with --set applied, its shape checked in one walk
//   2. job_sections.cpp  tree -> each section read from its own keys (task_sections.cpp, ...)
//   3. job_checks.cpp    the checks across sections, on what the sections read and where
//   4. here              the JobSpec: its text, identity JSON and file
#include "runner/job/job_parser.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "runner/errors.hpp"
#include "runner/job/job_checks.hpp"
#include "runner/job/job_sections.hpp"
#include "runner/job/job_tree.hpp"
#include "runner/job/resolved_json.hpp"

namespace shardrun::job {

JobSpec load_job(const std::string& file, const std::vector<std::string>& overrides,
                 const std::vector<std::string>& known_tasks, const std::string& job_dir)
{
    if (std::filesystem::is_directory(file)) {
        SHARDRUN_THROW(JobFileError, fmt::format("{}: cannot read the job file: it is a directory; give a YAML or JSON file",
                                                 file));
    }
    std::ifstream stream(file);
    if (!stream) {
        SHARDRUN_THROW(JobFileError, fmt::format("{}: cannot read the job file: {}", file,
                                                 std::filesystem::exists(file) ? "permission denied" : "no such file"));
    }
    std::stringstream text;
    text << stream.rdbuf();
    return parse_job(file, text.str(), overrides, known_tasks, job_dir);
}

JobSpec parse_job(const std::string& file, const std::string& text, const std::vector<std::string>& overrides,
                  const std::vector<std::string>& known_tasks, const std::string& given_job_dir)
{
    auto tree = read_tree(file, text, overrides, top_level_keys);
    const auto job_dir = given_job_dir.empty() ? std::filesystem::path(file).parent_path().string() : given_job_dir;
    auto job = read_sections(tree.root, tree.context, known_tasks, job_dir);
    job.spec.text = text;  // before the checks: auto_device's rule is located in it
    check_across(job, tree.context, given_job_dir);
    derive_settings(job.spec);
    job.spec.resolved_json = resolved_json(std::move(tree.identity), job.points_file);
    return std::move(job.spec);
}

}  // namespace shardrun::job

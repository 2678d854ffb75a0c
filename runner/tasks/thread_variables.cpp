#include "runner/tasks/thread_variables.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <string>

namespace shardrun::tasks {
namespace {

bool is_thread_variable(std::string_view name)
{
    return std::find(thread_variable_names.begin(), thread_variable_names.end(), name) != thread_variable_names.end();
}

}  // namespace

std::vector<std::string> thread_variables(int threads, const std::vector<std::string>& inherited,
                                          const std::vector<std::pair<std::string, std::string>>& job_env)
{
    std::vector<std::string> entries;
    if (threads <= 0) return entries;
    // The share itself, for what no variable above sizes (a DataLoader's num_workers, a tokenizer's pool).
    entries.push_back(fmt::format("SHARDRUN_CPU_THREADS={}", threads));
    const bool user_chose =
        std::any_of(inherited.begin(), inherited.end(),
                    [](const std::string& entry) { return is_thread_variable(std::string_view(entry).substr(0, entry.find('='))); }) ||
        std::any_of(job_env.begin(), job_env.end(), [](const auto& entry) { return is_thread_variable(entry.first); });
    if (user_chose) return entries;
    for (const auto name : thread_variable_names) entries.push_back(fmt::format("{}={}", name, threads));
    return entries;
}

bool environment_sets_threads()
{
    return std::any_of(thread_variable_names.begin(), thread_variable_names.end(),
                       [](std::string_view name) { return std::getenv(std::string(name).c_str()) != nullptr; });
}

}  // namespace shardrun::tasks

#pragma once

// @internal What the exec kind's files share: exec_kind.cpp (the kind, its group and worker
// paths), exec_program.cpp (the program once per task) and exec_environment.cpp (argv
// placeholders and the environment the program gets).
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "runner/core/task_kind.hpp"
#include "runner/process/task_output.hpp"

namespace shardrun::tasks {

/** The value of a built-in placeholder ({task_id}, {rank}, {task_dir}, {input}, ...); nullopt for other names. */
std::optional<std::string> exec_builtin_value(const TaskContext& context, std::string_view name);

/** <output>.tasks: a group member's folder is one level deeper (<id>/member<k>). */
inline std::string tasks_dir_of(const TaskContext& context)
{
    auto dir = std::filesystem::path(context.task_dir).parent_path();
    if (context.group.rank > 0) dir = dir.parent_path();
    return dir.string();
}

/** An output slot (scratch stdout, stderr, result folder), given back to its pool however the task ends. */
class OutputLease {
public:
    OutputLease(process::TaskOutputPool& pool, std::unique_ptr<process::TaskOutput> output) : pool_(pool), output_(std::move(output)) {}
    ~OutputLease() { pool_.release(std::move(output_)); }
    OutputLease(const OutputLease&) = delete;
    OutputLease& operator=(const OutputLease&) = delete;
    process::TaskOutput* operator->() const noexcept { return output_.get(); }

private:
    process::TaskOutputPool& pool_;
    std::unique_ptr<process::TaskOutput> output_;
};

}  // namespace shardrun::tasks

#pragma once
// auto_device.cpu_if names a parameter the job does not set (issue 39's trial): the job alone cannot
// tell a typo ('nn') from a parameter of the task kind the job leaves at its default ('m' of gemm).
// The job reader throws this with the plain message; the runner, which knows the kinds' parameters,
// says which of the two it is (run/setup/prepared_job.cpp).
#include <string>
#include <utility>
#include <vector>

#include "runner/errors.hpp"

namespace shardrun::job {

class UnsetRuleParamError : public JobFileError {
public:
    /**
     * @param what   the whole line as the job reader words it ("...: 'm' is not a parameter of this job; ...")
     * @param place  where it points ("file:line:col" or "--set auto_device.cpu_if")
     * @param set    the names the job sets (params and sweep), which a rule may compare
     */
    UnsetRuleParamError(const char* file, int line, const std::string& what, std::string place, std::string task,
                        std::string name, std::vector<std::string> set)
        : JobFileError(file, line, what), place_(std::move(place)), task_(std::move(task)), name_(std::move(name)),
          set_(std::move(set))
    {
    }
    const std::string& place() const noexcept { return place_; }
    const std::string& task() const noexcept { return task_; }
    const std::string& name() const noexcept { return name_; }
    const std::vector<std::string>& set() const noexcept { return set_; }

private:
    std::string place_, task_, name_;
    std::vector<std::string> set_;
};

}  // namespace shardrun::job

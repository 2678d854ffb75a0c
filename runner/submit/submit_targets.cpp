#include "runner/submit/submit_targets.hpp"

#include <fmt/format.h>

#include <array>

#include "runner/errors.hpp"

namespace shardrun::submit {

// Each defined in its runner/submit/target_<name>.cpp. A new target: one file, one line here.
extern const TargetEntry slurm_target;
extern const TargetEntry aws_batch_target;
extern const TargetEntry gcp_batch_target;

namespace {

constexpr std::array<const TargetEntry*, 3> all_targets{&slurm_target, &aws_batch_target, &gcp_batch_target};

}  // namespace

std::span<const TargetEntry* const> targets() { return all_targets; }

std::string target_names(std::string_view separator, std::string_view last_separator)
{
    std::string names;
    for (std::size_t i = 0; i < all_targets.size(); ++i) {
        if (i > 0) names += i + 1 == all_targets.size() ? last_separator : separator;
        names += all_targets[i]->name;
    }
    return names;
}

const TargetEntry& find_target(const std::string& name)
{
    for (const auto* target : all_targets) {
        if (target->name == name) return *target;
    }
    SHARDRUN_THROW(UsageError, fmt::format("submit: --to '{}' is not a target; use {}", name, target_names()));
}

}  // namespace shardrun::submit

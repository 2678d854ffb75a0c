#include "runner/submit/submit_targets.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "runner/errors.hpp"

namespace shardrun::submit {

// Each defined in its runner/submit/target_<name>.cpp. A new target: one file, one line here.
extern const TargetEntry slurm_target;
extern const TargetEntry aws_batch_target;
extern const TargetEntry gcp_batch_target;

namespace {

constexpr auto all_targets = std::to_array<const TargetEntry*>({&slurm_target, &aws_batch_target, &gcp_batch_target});

}  // namespace

std::span<const TargetEntry* const> targets() { return all_targets; }

std::vector<const OptionGroup*> option_groups()
{
    std::vector<const OptionGroup*> groups;
    for (const auto* target : all_targets) {
        for (const auto* group : target->option_groups) {
            if (std::find(groups.begin(), groups.end(), group) == groups.end()) groups.push_back(group);
        }
    }
    return groups;
}

std::string target_titles(std::string_view separator)
{
    std::string titles;
    for (const auto* target : all_targets) {
        if (!titles.empty()) titles += separator;
        titles += target->title;
    }
    return titles;
}

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

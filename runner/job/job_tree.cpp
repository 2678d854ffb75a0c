#include "runner/job/job_tree.hpp"

#include "runner/job/set_overrides.hpp"
#include "runner/job/tree_checks.hpp"
#include "runner/job/yaml_text.hpp"

namespace shardrun::job {

JobTree read_tree(const std::string& file, const std::string& text, const std::vector<std::string>& overrides,
                  const std::vector<std::string>& top_level_keys)
{
    auto root = parse_yaml(file, text);
    auto overridden = apply_overrides(root, overrides);
    YamlContext context(file, std::move(overridden));
    auto identity = check_tree(root, context, top_level_keys);
    return {std::move(root), std::move(context), std::move(identity)};
}

}  // namespace shardrun::job

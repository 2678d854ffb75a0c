#include "runner/job/exec_results.hpp"

#include <fmt/format.h>

#include <cstdint>

namespace shardrun::job {

bool read_bool(const YAML::Node& node, const YamlContext& context, const std::string& path)
{
    if (node.IsScalar()) {
        const auto& text = node.Scalar();
        if (text == "true" || text == "True" || text == "TRUE") return true;
        if (text == "false" || text == "False" || text == "FALSE") return false;
    }
    const auto shown = node.IsScalar() ? fmt::format("'{}'", node.Scalar())
                       : node.IsSequence() ? std::string("a list")
                       : node.IsMap()      ? std::string("a mapping")
                                           : std::string("a null value");
    context.fail(node, path, fmt::format("{} is not a boolean; allowed: true, false", shown));
}

void resolve_item_rows(const YAML::Node& exec, const YamlContext& context, JobSpec& spec)
{
    for (auto& field : spec.exec.results) {
        if (!field.item_rows) continue;
        const auto path = fmt::format("exec.results.{}[1]", field.name);
        const auto node = exec && exec["results"] ? exec["results"][field.name][1] : exec;
        if (!spec.data.present) {
            context.fail(node, path, "rows (a data chunk's rows) needs data: {items: N, chunk: c}; without data: give a number");
        }
        // One task's values are held in memory and written as one row: the same 1 GiB bound as a number.
        std::uint64_t bytes = 0;
        if (__builtin_mul_overflow(static_cast<std::uint64_t>(field.bytes()), spec.data.chunk, &bytes) ||
            bytes > (std::uint64_t{1} << 30)) {
            context.fail(node, path, "data.chunk rows make one task's values larger than 1 GiB; allowed: at most 1 GiB per task");
        }
        field.shape[0] = static_cast<std::size_t>(spec.data.chunk);
    }
}

}  // namespace shardrun::job

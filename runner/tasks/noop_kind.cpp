#include "runner/tasks/noop_kind.hpp"
#include "runner/tasks/registry.hpp"

#include <cstring>

namespace shardrun::tasks {
namespace {

template <typename T>
std::vector<std::byte> bytes_of(T value)
{
    std::vector<std::byte> bytes(sizeof(T));
    std::memcpy(bytes.data(), &value, sizeof(T));
    return bytes;
}

}  // namespace

// noop stands in for any task in scheduler tests and dry runs, so it takes every sweep as it is.
const ParamTable& NoopKind::parameters()
{
    static const ParamTable table{{}, true};
    return table;
}

void NoopKind::validate(const job::ParamMap& /*params*/, const JobView& /*job*/) const {}

std::vector<io::FieldSpec> NoopKind::fields(const job::ParamMap& /*params*/) const
{
    return {{"value", io::DType::float64, {}, ""}, {"items", io::DType::int64, {}, ""}};
}

TaskOutcome NoopKind::run(const TaskContext& context) const
{
    TaskOutcome outcome;
    const auto items = context.range ? static_cast<std::int64_t>(context.range->end - context.range->start) : 0;
    outcome.values = {bytes_of(static_cast<double>(context.task_id)), bytes_of(items)};
    return outcome;
}

TaskKindEntry noop_kind_entry()
{
    return {"noop", "does nothing; records the task id and its data range length (scheduler and output overhead)",
            &NoopKind::parameters(), [](const job::JobSpec&) { return std::make_unique<NoopKind>(); }};
}

}  // namespace shardrun::tasks

#include "runner/run/setup/prepared_job.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "base/documented_error.hpp"
#include "runner/errors.hpp"
#include "runner/job/job_parser.hpp"
#include "runner/job/remote_path.hpp"
#include "runner/job/yaml_context.hpp"
#include "runner/run/error_message.hpp"
#include "runner/run/setup/data_input.hpp"
#include "runner/run/setup/device_choice.hpp"
#include "runner/run/setup/param_checks.hpp"
#include "runner/tasks/dataset_shapes.hpp"
#include "runner/tasks/registry.hpp"

namespace shardrun::run {
namespace {

constexpr std::uint64_t points_validated = 100000;

bool same_fields(const std::vector<io::FieldSpec>& a, const std::vector<io::FieldSpec>& b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
        return x.name == y.name && x.dtype == y.dtype && x.shape == y.shape;
    });
}

// The kind's own checks, per sweep point, after the table's (names, types, ranges) passed.
void validate_points(PreparedJob& job, const tasks::JobView& view)
{
    const auto points = std::min(job.spec.sweep.size(), points_validated);
    auto params = job.space->params_of(0);
    for (std::uint64_t point = 0; point < points; ++point) {
        job.space->update_params(point * job.space->chunks(), params);
        try {
            job.kind->validate(params, view);
            if (point == 0) {
                job.fields = job.kind->fields(params);
            } else if (job.kind->fields_depend_on_params() && !same_fields(job.kind->fields(params), job.fields)) {
                SHARDRUN_THROW(JobFileError, "the result fields' shapes change across the sweep; sweep only parameters that keep them");
            }
        } catch (const JobFileError& error) {
            throw JobFileError(error.file(), error.line(), locate_kind_error(job.spec, point, error.what()));
        }
    }
}

}  // namespace

PreparedJob prepare_job(const std::string& file, const std::vector<std::string>& overrides, const std::string& job_dir,
                        InputAccess input_access)
{
    PreparedJob job;
    try {
        job.spec = job::load_job(file, overrides, tasks::task_kind_names(), job_dir);
    } catch (const job::UnsetRuleParamError& error) {
        const auto* kind = tasks::find_task_kind(error.task());
        if (kind == nullptr) throw;
        refuse_unset_rule_param(error, *kind->params);
    }
    job.kind = tasks::make_task_kind(job.spec);
    if (const auto kind = tasks::find_task_kind(job.spec.task)) check_params(job.spec, *kind->params);
    check_task_devices(job.spec);  // every kind, exec and noop included
    std::optional<io::DatasetInfo> input;
    const auto given_input = job.spec.data.input;  // the URL a staged copy stands for, in messages
    if (input_access == InputAccess::stage && storage::is_remote(job.spec.data.input)) {
        // In object storage: downloaded once per node into its scratch folder; the ranks read that copy.
        try {
            job.spec.data.input = stage_remote_input(job.spec);
        } catch (const Error& error) {
            const auto where = job::located(job.spec.sites.value("data.input", job.spec.file), "data.input", error.what());
            // The bucket's failure keeps its pointer (#bucket-errors), as plan and status give it.
            if (const char* docs = docs_of(error)) SHARDRUN_THROW_DOCUMENTED(JobFileError, docs, where);
            SHARDRUN_THROW(JobFileError, where);
        }
    }
    if (!job.spec.data.input.empty()) input = read_input(job.spec);  // opened once, here
    if (input) {
        try {
            job.item_ids = read_item_ids(job.spec);
        } catch (const JobFileError& error) {
            // A record of the staged copy is named by the URL the job file gave (trial 41a), not the copy's path.
            const std::string& staged = job.spec.data.input;
            if (staged == given_input) throw;
            std::string text = error.what();
            for (auto at = text.find(staged); at != std::string::npos; at = text.find(staged, at + given_input.size())) {
                text.replace(at, staged.size(), given_input);
            }
            throw JobFileError(error.file(), error.line(), text);
        }
    }
    job.items = input ? input->dims.front() : job.spec.data.items;
    job.space = std::make_unique<job::TaskSpace>(job::TaskSpace::of(job.spec, job.items));
    tasks::DatasetShapes datasets;  // a file the params name is opened once, not once per sweep point
    validate_points(job, tasks::JobView{&job.spec, input ? &*input : nullptr, &datasets});
    return job;
}

}  // namespace shardrun::run

#include "runner/job/job_checks.hpp"

#include <fmt/format.h>

#include <map>

#include "runner/errors.hpp"
#include "runner/job/argv_template.hpp"

namespace shardrun::job {

void check_across(JobRead& job, const YamlContext& context, const std::string& given_job_dir)
{
    auto& spec = job.spec;
    check_fixed_or_swept(spec);
    // Kinds whose result shape follows the chunk (blur, embed) read params.chunk.
    if (spec.data.present && !spec.params.contains("chunk")) {
        spec.params.set("chunk", static_cast<std::int64_t>(spec.data.chunk));
        spec.sites.values["params.chunk"] = spec.sites.value("data.chunk", spec.file);
    }
    check_param_names(job, context);
    if (spec.data.present && spec.data.input.empty()) {
        checked_task_count(spec.sweep.size(), true, spec.data.items, spec.data.chunk,
                           context.where(job.marks.value("data.items"), "data.items") + ": data.items");
    }
    check_auto_device(job, context);
    check_gpu_sharing(job, context);
    check_exec_templates(job, context);
    resolve_job_paths(job, context, given_job_dir);
    resolve_item_rows(job, context);
    resolve_param_shapes(job, context);
}

void check_fixed_or_swept(const JobSpec& spec)
{
    for (const auto& name : spec.sweep.names()) {
        if (!spec.params.contains(name)) continue;
        const auto fixed_at = spec.sites.value("params." + name, spec.file);
        SHARDRUN_THROW(JobFileError, located(spec.sweep.name_where(name), "sweep." + name,
                                             fmt::format("'{}' is also fixed in params ({}); a parameter is either fixed or "
                                                         "swept: remove one of them",
                                                         name, fixed_at)));
    }
}

void check_param_names(const JobRead& job, const YamlContext& context)
{
    const auto& spec = job.spec;
    std::map<std::string, std::string> owners;  // environment name -> parameter name
    auto names = spec.sweep.names();
    for (const auto& entry : spec.params.entries()) names.push_back(entry.first);
    for (const auto& name : names) {
        const auto env = param_env_name(name);
        const auto [owner, fresh] = owners.emplace(env, name);
        if (fresh || owner->second == name) continue;
        // At the sweep key of that name, else the params entry, else the params section.
        const auto section = job.marks.values.count("sweep." + name) != 0 ? "sweep" : "params";
        const auto path = join_path(section, name);
        const auto mark = job.marks.values.count(path) != 0 ? job.marks.value(path) : job.marks.value(section);
        context.fail(mark, path, fmt::format("'{}' and '{}' are both {} for an exec task; rename one", owner->second, name, env));
    }
}

std::uint64_t checked_task_count(std::uint64_t points, bool has_data, std::uint64_t items, std::uint64_t chunk,
                                 const std::string& where)
{
    const std::uint64_t chunks = has_data ? items / chunk + (items % chunk != 0 ? 1 : 0) : 1;
    std::uint64_t tasks = 0;
    if (__builtin_mul_overflow(points, chunks, &tasks)) {
        SHARDRUN_THROW(JobFileError, fmt::format("{}: {} sweep points x {} data chunks is more than 2^64 tasks; use fewer items "
                                                 "or a larger data.chunk",
                                                 where, points, chunks));
    }
    return tasks;
}

}  // namespace shardrun::job

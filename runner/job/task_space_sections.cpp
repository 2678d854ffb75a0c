// The sections that span the tasks: sweep (sweep.hpp) and data.
#include "runner/job/job_fields.hpp"
#include "runner/job/job_sections.hpp"
#include "runner/job/section_reads.hpp"
#include "runner/job/url_typos.hpp"

namespace shardrun::job {

void read_sweep(const YAML::Node& root, const YamlContext& context, const std::string& job_dir, JobRead& job)
{
    SweepSources sources;
    job.spec.sweep = parse_sweep(root["sweep"], context, job_dir.empty() ? "." : job_dir, &sources);
    job.marks.values.insert(sources.marks.begin(), sources.marks.end());
    job.points_file = std::move(sources.points_file);
}

void read_data(const YAML::Node& root, const YamlContext& context, JobRead& job)
{
    const auto node = root["data"];
    auto& data = job.spec.data;
    if (!node || node.IsNull()) return;
    if (!node.IsMap()) context.fail(node, "data", "must be {items: N, chunk: c} or {input: file.h5:/dataset, chunk: c}");
    context.check_keys(node, "data", job_field_names("data"));
    data.present = true;
    if (node["items"] && node["input"]) context.fail(node, "data", "give items or input, not both");
    if (!node["items"] && !node["input"]) context.fail(node, "data", "missing items (or input)");
    if (node["items"]) {
        data.items = static_cast<std::uint64_t>(read_integer(node["items"], context, "data.items"));
        job.marks.values["data.items"] = node["items"].Mark();
    }
    if (node["input"]) {
        data.input = read_string(node["input"], context, "data.input");
        if (data.input.find(":/") == std::string::npos) {
            context.fail(node["input"], "data.input", "must be file.h5:/dataset");
        }
        if (const auto typo = storage::misspelled_input_url(data.input)) context.fail(node["input"], "data.input", *typo);
        job.spec.sites.values["data.input"] = context.where(node["input"], "data.input");
    }
    if (!node["chunk"]) context.fail(node, "data.chunk", "missing; give the number of items per task");
    data.chunk = static_cast<std::uint64_t>(read_integer(node["chunk"], context, "data.chunk"));
    job.spec.sites.values["data.chunk"] = context.where(node["chunk"], "data.chunk");
}

}  // namespace shardrun::job

// The sections that span the tasks: sweep (sweep.hpp) and data.
#include "runner/job/job_fields.hpp"
#include "runner/job/job_sections.hpp"
#include "runner/job/section_reads.hpp"
#include "runner/job/url_typos.hpp"
#include "runner/job/input_format.hpp"

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
        data.format = node["format"] ? read_string(node["format"], context, "data.format")
                                     : input_format_of_suffix(data.input).value_or("hdf5");
        if (data.format != "hdf5" && data.format != "text" && data.format != "jsonl" && data.format != "csv" &&
            data.format != "parquet") {
            context.fail(node["format"], "data.format", "'" + data.format + "'; allowed: hdf5, text, jsonl, csv or parquet");
        }
        if (data.format == "hdf5" && data.input.find(":/") == std::string::npos) {
            context.fail(node["input"], "data.input",
                         "must be file.h5:/dataset, or a .txt, .jsonl, .csv or .parquet file (or say data.format)");
        }
        if (const auto typo = storage::misspelled_input_url(data.input)) context.fail(node["input"], "data.input", *typo);
        job.spec.sites.values["data.input"] = context.where(node["input"], "data.input");
    }
    if (node["format"] && !node["input"]) context.fail(node["format"], "data.format", "says how data.input is read; give data.input");
    if (node["id"]) {
        data.id = read_string(node["id"], context, "data.id");
        if (data.format != "jsonl" && data.format != "csv" && data.format != "parquet") {
            context.fail(node["id"], "data.id", "needs records with fields; allowed: a jsonl, csv or parquet data.input");
        }
        job.spec.sites.values["data.id"] = context.where(node["id"], "data.id");
    }
    if (!node["chunk"]) context.fail(node, "data.chunk", "missing; give the number of items per task");
    data.chunk = static_cast<std::uint64_t>(read_integer(node["chunk"], context, "data.chunk"));
    job.spec.sites.values["data.chunk"] = context.where(node["chunk"], "data.chunk");
}

}  // namespace shardrun::job

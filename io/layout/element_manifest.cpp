#include "io/layout/element_manifest.hpp"

#include <chrono>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "io/errors.hpp"
#include "io/layout/gpu_check_json.hpp"
#include "io/layout/output_layout.hpp"

using nlohmann::json;

namespace shardrun::io {
namespace {

DType parse_dtype(const std::string& name)
{
    for (const auto dtype : {DType::float32, DType::float64, DType::int32, DType::int64, DType::boolean}) {
        if (name == dtype_name(dtype)) return dtype;
    }
    throw std::invalid_argument("unknown dtype '" + name + "'");
}

json metadata_json(const JobMetadata& m)
{
    return json{{"job_name", m.job_name},       {"job_file", m.job_file},       {"job_text", m.job_text},
                {"params_json", m.params_json}, {"shardrun_version", m.shardrun_version},
                {"git_commit", m.git_commit},   {"array_index", m.array_index}, {"array_count", m.array_count},
                {"world_size", m.world_size},   {"hostnames", m.hostnames},     {"library_versions", m.library_versions},
                {"task_count", m.task_count},   {"first_task", m.first_task},   {"end_task", m.end_task},
                {"param_names", m.param_names},
                {"earlier_jobs", m.earlier_jobs},
                {"scheduler", m.scheduler},     {"scheduler_ids", m.scheduler_ids}};
}

JobMetadata parse_metadata(const json& j)
{
    JobMetadata m;
    j.at("job_name").get_to(m.job_name);
    j.at("job_file").get_to(m.job_file);
    j.at("job_text").get_to(m.job_text);
    j.at("params_json").get_to(m.params_json);
    j.at("shardrun_version").get_to(m.shardrun_version);
    j.at("git_commit").get_to(m.git_commit);
    j.at("array_index").get_to(m.array_index);
    j.at("array_count").get_to(m.array_count);
    j.at("world_size").get_to(m.world_size);
    j.at("hostnames").get_to(m.hostnames);
    j.at("library_versions").get_to(m.library_versions);
    j.at("task_count").get_to(m.task_count);
    j.at("first_task").get_to(m.first_task);
    j.at("end_task").get_to(m.end_task);
    j.at("param_names").get_to(m.param_names);
    m.earlier_jobs = j.value("earlier_jobs", std::vector<std::string>{});
    // Absent from manifests written before they were recorded.
    m.scheduler = j.value("scheduler", std::string("none"));
    m.scheduler_ids = j.value("scheduler_ids", std::map<std::string, std::string>{});
    return m;
}

ElementManifest parse_manifest(const json& j)
{
    ElementManifest manifest;
    manifest.metadata = parse_metadata(j.at("metadata"));
    j.at("job_hash").get_to(manifest.job_hash);
    manifest.layout = j.at("layout").get<std::string>() == "single" ? Layout::single : Layout::shards;
    j.at("created").get_to(manifest.created);
    j.at("finished").get_to(manifest.finished);
    manifest.stopped = j.value("stopped", 0.0);
    j.at("complete").get_to(manifest.complete);
    manifest.consolidated = j.value("consolidated", false);
    for (const auto& field : j.at("fields")) {
        FieldSpec spec;
        spec.name = field.at("name").get<std::string>();
        spec.dtype = parse_dtype(field.at("dtype").get<std::string>());
        spec.shape = field.at("shape").get<std::vector<std::size_t>>();
        spec.units = field.at("units").get<std::string>();
        spec.item_rows = field.value("item_rows", false);
        spec.length_param = field.value("length_param", std::string());
        spec.length_axis = field.value("length_axis", std::size_t{0});
        manifest.fields.push_back(std::move(spec));
    }
    manifest.rank_startup_seconds = j.value("rank_startup_seconds", std::vector<double>{});
    manifest.quarantined = j.value("quarantined", std::vector<std::string>{});
    if (j.contains("gpus")) manifest.gpus = gpu_checks_from_json(j["gpus"]);
    return manifest;
}

}  // namespace

std::optional<ElementManifest> read_manifest(const std::string& path, int array_index)
{
    const auto file = layout::manifest_path(path, array_index);
    std::ifstream in(file);
    if (!in) return std::nullopt;
    try {
        return parse_manifest(json::parse(in));
    } catch (const std::exception& error) {
        SHARDRUN_THROW(OutputError, file.string() + " is unreadable (" + error.what() +
                                    "); rerun that array element with --force");
    }
}

void write_manifest(const std::string& path, const ElementManifest& manifest)
{
    json fields = json::array();
    for (const auto& field : manifest.fields) {
        fields.push_back(json{{"name", field.name}, {"dtype", dtype_name(field.dtype)},
                              {"shape", field.shape}, {"units", field.units}});
        if (field.item_rows) fields.back()["item_rows"] = true;
        if (!field.length_param.empty()) {
            fields.back()["length_param"] = field.length_param;
            fields.back()["length_axis"] = field.length_axis;
        }
    }
    json j{{"format", "shardrun-element/1"},
                 {"metadata", metadata_json(manifest.metadata)},
                 {"job_hash", manifest.job_hash},
                 {"layout", manifest.layout == Layout::single ? "single" : "shards"},
                 {"created", manifest.created},
                 {"finished", manifest.finished},
                 {"stopped", manifest.stopped},
                 {"complete", manifest.complete},
                 {"consolidated", manifest.consolidated},
                 {"fields", fields},
                 {"rank_startup_seconds", manifest.rank_startup_seconds},
                 {"quarantined", manifest.quarantined}};
    if (!manifest.gpus.empty()) j["gpus"] = gpu_checks_json(manifest.gpus);
    layout::write_file_atomically(layout::manifest_path(path, manifest.metadata.array_index), j.dump(1) + "\n");
}

double now_seconds()
{
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

std::string iso8601_utc(double seconds)
{
    const auto whole = static_cast<std::time_t>(seconds);
    std::tm utc{};
    gmtime_r(&whole, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

}  // namespace shardrun::io

#include "io/read/recorded_job.hpp"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "io/hdf5/attributes.hpp"
#include "io/hdf5/handle.hpp"
#include "io/layout/element_manifest.hpp"
#include "io/layout/element_match.hpp"

namespace shardrun::io {

std::optional<RecordedJob> recorded_job(const std::string& path, int array_index)
{
    if (const auto manifest = read_manifest(path, array_index)) {
        return RecordedJob{manifest->metadata.params_json, manifest->metadata.earlier_jobs};
    }
    // The element's folder may be gone (deleted by hand): a complete master still tells.
    if (!std::filesystem::is_regular_file(path)) return std::nullopt;
    hdf5::silence_hdf5_errors();
    try {
        auto file = SHARDRUN_H5_OPEN(File, H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
        auto params = hdf5::read_string_attr(file.get(), "params_json");
        if (!params) return std::nullopt;
        RecordedJob job{*params, {}};
        if (const auto earlier = hdf5::read_string_attr(file.get(), "earlier_params_json")) {
            job.earlier_jobs = nlohmann::json::parse(*earlier).get<std::vector<std::string>>();
        }
        return job;
    } catch (const Hdf5Error&) {
        return std::nullopt;
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;
    }
}

std::optional<RecordedJobFile> recorded_job_file(const std::string& path)
{
    if (const auto manifests = read_element_manifests(path); !manifests.empty()) {
        const auto& metadata = manifests.front().second.metadata;
        return RecordedJobFile{metadata.job_file, metadata.job_text};
    }
    if (!std::filesystem::is_regular_file(path)) return std::nullopt;
    hdf5::silence_hdf5_errors();
    try {
        auto file = SHARDRUN_H5_OPEN(File, H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
        auto job_file = hdf5::read_string_attr(file.get(), "job_file");
        auto job_text = hdf5::read_string_attr(file.get(), "job_text");
        if (!job_file || !job_text) return std::nullopt;
        return RecordedJobFile{*job_file, *job_text};
    } catch (const Hdf5Error&) {
        return std::nullopt;
    }
}

std::optional<std::uint64_t> recorded_task_count(const std::string& path)
{
    if (const auto manifests = read_element_manifests(path); !manifests.empty()) return manifests.front().second.metadata.task_count;
    if (!std::filesystem::is_regular_file(path)) return std::nullopt;
    hdf5::silence_hdf5_errors();
    try {
        auto file = SHARDRUN_H5_OPEN(File, H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
        const auto count = hdf5::read_int_attr(file.get(), "task_count");
        return count && *count >= 0 ? std::optional<std::uint64_t>(static_cast<std::uint64_t>(*count)) : std::nullopt;
    } catch (const Hdf5Error&) {
        return std::nullopt;
    }
}

}  // namespace shardrun::io

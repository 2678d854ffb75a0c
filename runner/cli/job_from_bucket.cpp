#include "runner/cli/job_from_bucket.hpp"

#include <filesystem>
#include <fstream>
#include <optional>
#include <utility>

#include "io/errors.hpp"
#include "io/hdf5/attributes.hpp"
#include "io/hdf5/handle.hpp"
#include "io/layout/element_match.hpp"
#include "io/layout/output_layout.hpp"
#include "runner/job/remote_path.hpp"
#include "runner/storage/rclone.hpp"

namespace fs = std::filesystem;

namespace shardrun::cli {
namespace {

/** (job file, job text) from the master's attributes; nullopt when it is no shardrun master. */
std::optional<std::pair<std::string, std::string>> master_job(const std::string& path)
{
    if (!fs::is_regular_file(path)) return std::nullopt;
    io::hdf5::silence_hdf5_errors();
    try {
        auto file = SHARDRUN_H5_OPEN(File, H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
        auto job_file = io::hdf5::read_string_attr(file.get(), "job_file");
        auto job_text = io::hdf5::read_string_attr(file.get(), "job_text");
        if (!job_file || !job_text) return std::nullopt;
        return std::make_pair(*job_file, *job_text);
    } catch (const io::Hdf5Error&) {
        return std::nullopt;
    }
}

}  // namespace

BucketJob job_from_bucket(const std::string& url, const std::string& folder)
{
    const auto remote = *storage::parse_remote(url);
    const auto copy = (fs::path(folder) / "recorded").string();
    const auto local = (fs::path(copy) / remote.name).string();
    const auto shards = io::layout::shards_dir(remote.name).string();
    std::optional<std::pair<std::string, std::string>> recorded;
    // Every element records the same job: the manifests are a few kB, the master may be large.
    storage::download(remote.parent, copy, {storage::exact_pattern(shards) + "/a*/element.json"});
    if (const auto manifests = io::read_element_manifests(local); !manifests.empty()) {
        const auto& metadata = manifests.front().second.metadata;
        recorded = std::make_pair(metadata.job_file, metadata.job_text);
    } else {
        storage::download(remote.parent, copy, {storage::exact_pattern(remote.name)});
        recorded = master_job(local);
    }
    std::error_code ignored;
    fs::remove_all(copy, ignored);
    if (!recorded) {
        SHARDRUN_THROW(io::OutputError, url + ": no shardrun output records a job there (neither " + shards +
                                            "/a*/element.json nor a master " + remote.name + " is in the bucket); check the URL");
    }
    const auto& [job_file, job_text] = *recorded;
    BucketJob job;
    const auto name = fs::path(job_file).filename();
    job.job_file = (fs::path(folder) / (name.empty() ? fs::path("job.yaml") : name)).string();
    job.job_dir = fs::path(job_file).parent_path().string();
    std::ofstream(job.job_file) << job_text;
    return job;
}

}  // namespace shardrun::cli

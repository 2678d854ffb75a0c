#include "runner/cli/job_from_bucket.hpp"

#include <filesystem>
#include <fstream>

#include "io/errors.hpp"
#include "io/layout/output_layout.hpp"
#include "io/read/recorded_job.hpp"
#include "runner/job/remote_path.hpp"
#include "runner/storage/rclone.hpp"

namespace fs = std::filesystem;

namespace shardrun::cli {

BucketJob job_from_bucket(const std::string& url, const std::string& folder)
{
    const auto remote = *storage::parse_remote(url);
    const auto copy = (fs::path(folder) / "recorded").string();
    const auto local = (fs::path(copy) / remote.name).string();
    const auto shards = io::layout::shards_dir(remote.name).string();
    // Every element records the same job: the manifests are a few kB, the master may be large.
    storage::download(remote.parent, copy, {storage::exact_pattern(shards) + "/a*/element.json"});
    auto recorded = io::recorded_job_file(local);
    if (!recorded) {
        storage::download(remote.parent, copy, {storage::exact_pattern(remote.name)});
        recorded = io::recorded_job_file(local);
    }
    std::error_code ignored;
    fs::remove_all(copy, ignored);
    if (!recorded) {
        SHARDRUN_THROW(io::OutputError, url + ": no shardrun output records a job there (neither " + shards +
                                            "/a*/element.json nor a master " + remote.name + " is in the bucket); check the URL");
    }
    BucketJob job;
    const auto name = fs::path(recorded->path).filename();
    job.job_file = (fs::path(folder) / (name.empty() ? fs::path("job.yaml") : name)).string();
    job.job_dir = fs::path(recorded->path).parent_path().string();
    std::ofstream(job.job_file) << recorded->text;
    return job;
}

}  // namespace shardrun::cli

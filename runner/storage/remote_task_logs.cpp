#include "runner/storage/remote_task_logs.hpp"

#include <filesystem>

#include "io/layout/output_layout.hpp"
#include "runner/storage/rclone.hpp"

namespace shardrun::storage {

void fetch_task_logs(const RemotePath& remote, const std::string& local_path, const std::vector<std::uint64_t>& ids)
{
    if (ids.empty()) return;
    constexpr std::size_t most_filters = 1000;  // rclone matches every object against every filter
    const auto tasks = io::layout::tasks_dir(remote.name);
    std::vector<std::string> includes;
    if (ids.size() > most_filters) {
        includes.push_back(exact_pattern(tasks.string()) + "/**");
    } else {
        for (const auto id : ids) includes.push_back(exact_pattern((tasks / std::to_string(id)).string()) + "/**");
    }
    download(remote.parent, std::filesystem::path(local_path).parent_path().string(), includes);
}

}  // namespace shardrun::storage

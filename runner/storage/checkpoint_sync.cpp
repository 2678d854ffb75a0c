#include "runner/storage/checkpoint_sync.hpp"

#include <chrono>
#include <filesystem>
#include <iostream>
#include <vector>

#include <fmt/format.h>

#include "runner/errors.hpp"
#include "runner/storage/rclone.hpp"

namespace shardrun::storage {
namespace fs = std::filesystem;
namespace {

using Files = std::map<std::string, std::pair<std::uintmax_t, std::int64_t>>;

/** Every file under <mirror_root>/<tasks_name>/<id>/checkpoint/, relative to mirror_root, with its size and time. */
Files checkpoint_files(const std::string& mirror_root, const std::string& tasks_name)
{
    Files files;
    std::error_code error;
    const fs::path tasks = fs::path(mirror_root) / tasks_name;
    for (fs::directory_iterator task(tasks, error), end; !error && task != end; task.increment(error)) {
        const auto folder = task->path() / "checkpoint";
        if (!fs::is_directory(folder, error)) continue;
        for (fs::recursive_directory_iterator it(folder, error), done; !error && it != done; it.increment(error)) {
            if (!it->is_regular_file(error)) continue;
            const auto size = it->file_size(error);
            const auto time = it->last_write_time(error).time_since_epoch().count();
            if (!error) files[fs::relative(it->path(), mirror_root).string()] = {size, static_cast<std::int64_t>(time)};
        }
        error.clear();
    }
    return files;
}

void say(const std::string& what, const std::exception& error)
{
    std::cerr << fmt::format("shardrun: checkpoints: cannot {}: {} (the tasks go on; a retry elsewhere would start "
                             "from an older checkpoint)\n", what, error.what())
              << std::flush;
}

}  // namespace

CheckpointSync::CheckpointSync(std::string mirror_root, std::string remote_root, std::string tasks_name, double period_seconds)
    : mirror_root_(std::move(mirror_root)), remote_root_(std::move(remote_root)), tasks_name_(std::move(tasks_name)),
      synced_(checkpoint_files(mirror_root_, tasks_name_))  // restored ones: the bucket has them already
{
    if (period_seconds > 0) {
        thread_ = std::make_unique<core::PeriodicThread>(
            std::chrono::milliseconds(static_cast<long>(period_seconds * 1000)), [this] {
                sync();
                return true;
            });
    }
}

CheckpointSync::~CheckpointSync()
{
    if (thread_) thread_->stop();
}

void CheckpointSync::restore(const std::string& mirror_root, const std::string& remote_root, const std::string& tasks_name)
{
    try {
        download(remote_root, mirror_root, {exact_pattern(tasks_name) + "/*/checkpoint/**"});
    } catch (const std::exception& error) {
        say("restore the tasks' checkpoint folders from " + remote_root, error);
    }
}

void CheckpointSync::flush()
{
    if (thread_) thread_->stop();
    sync();
}

void CheckpointSync::sync()
{
    std::lock_guard lock(mutex_);
    const auto now = checkpoint_files(mirror_root_, tasks_name_);
    std::vector<std::string> changed, gone;
    for (const auto& [name, state] : now) {
        const auto found = synced_.find(name);
        if (found == synced_.end() || found->second != state) changed.push_back(name);
    }
    for (const auto& [name, state] : synced_) {
        if (now.count(name) == 0) gone.push_back(name);  // its task succeeded, or it replaced the file
    }
    try {
        upload_files(mirror_root_, remote_root_, changed);
        for (const auto& name : changed) synced_[name] = now.at(name);
    } catch (const std::exception& error) {
        say(fmt::format("upload {} checkpoint file(s)", changed.size()), error);
    }
    try {
        if (!gone.empty()) delete_files(remote_root_, gone);
        for (const auto& name : gone) synced_.erase(name);
    } catch (const std::exception& error) {
        say(fmt::format("delete {} checkpoint file(s) of finished tasks", gone.size()), error);
    }
}

}  // namespace shardrun::storage

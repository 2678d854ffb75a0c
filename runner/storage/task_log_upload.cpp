#include "runner/storage/task_log_upload.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "runner/storage/rclone.hpp"

namespace fs = std::filesystem;

namespace shardrun::storage {
namespace {

/** `path` absolute and without "." or "..": task folders and the mirror root compare as text. */
fs::path normal(const std::string& path)
{
    std::error_code error;
    return fs::absolute(path, error).lexically_normal();
}

}  // namespace

bool copy_log_tail(const std::string& from, const std::string& to, std::uintmax_t limit)
{
    std::ifstream in(from, std::ios::binary);
    if (!in) return false;
    in.seekg(0, std::ios::end);
    const auto size = static_cast<std::uintmax_t>(in.tellg());
    std::uintmax_t cut = size > limit ? size - limit : 0;
    std::string text(static_cast<std::size_t>(size - cut), '\0');
    in.seekg(static_cast<std::streamoff>(cut));
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (cut > 0) {
        // From a line's start, when one begins in the tail: a half line reads like a corrupt one.
        const auto newline = text.find('\n');
        if (newline != std::string::npos && newline + 1 < text.size()) {
            text.erase(0, newline + 1);
            cut += newline + 1;
        }
        text.insert(0, fmt::format("[first {} bytes cut]\n", cut));
    }
    std::error_code error;
    fs::create_directories(fs::path(to).parent_path(), error);
    std::ofstream out(to, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    return static_cast<bool>(out);
}

TaskLogUploader::TaskLogUploader(std::string mirror_root, std::string remote_root, std::string worker_log, int rank,
                                 double period_seconds)
    : mirror_root_(normal(mirror_root).string()), remote_root_(std::move(remote_root)), worker_log_(std::move(worker_log)),
      staging_((fs::path(mirror_root_) / fmt::format(".shardrun-logs-r{}", rank)).string())
{
    std::error_code error;
    fs::remove_all(staging_, error);  // what a killed run of this rank left: its tasks run again
    const auto period = std::chrono::milliseconds(static_cast<long>(period_seconds * 1000));
    thread_ = std::make_unique<core::PeriodicThread>(period, [this] {
        upload_staged();  // a failed round is tried again next period; flush() says so
        return true;
    });
}

TaskLogUploader::~TaskLogUploader()
{
    thread_.reset();
    std::error_code error;
    fs::remove_all(staging_, error);
}

void TaskLogUploader::stage(const std::string& file)
{
    const auto relative = normal(file).lexically_relative(mirror_root_);
    if (relative.empty() || *relative.begin() == "..") return;  // not in the mirror: not the output's
    if (!copy_log_tail(file, (fs::path(staging_) / relative).string())) return;
    const std::lock_guard lock(mutex_);
    staged_.push_back(relative.string());
}

void TaskLogUploader::keep(const std::string& task_dir, const std::vector<int>& attempts, bool latest)
{
    if (task_dir.empty()) return;  // a kind without task folders
    std::vector<std::string> names;
    for (const int attempt : attempts) {
        names.push_back(fmt::format("stdout.{}", attempt));
        names.push_back(fmt::format("stderr.{}", attempt));
    }
    if (latest) names.insert(names.end(), {"stdout", "stderr"});  // a worker task's failure writes only stderr
    std::error_code error;
    for (const auto& name : names) {
        const auto file = fs::path(task_dir) / name;
        if (fs::is_regular_file(file, error)) stage(file.string());
    }
}

void TaskLogUploader::keep_attempts(const std::string& task_dir, const std::vector<io::AttemptRecord>& attempts,
                                    bool every_attempt)
{
    std::vector<int> kept;
    bool latest = false;
    for (const auto& attempt : attempts) {
        // A cut-short attempt is no failure: the task runs again, and its rerun's output is what counts.
        const bool failed = !attempt.interrupted && (attempt.exit_code != 0 || !attempt.message.empty());
        latest = every_attempt || failed;
        if (latest) kept.push_back(attempt.attempt);
    }
    if (!kept.empty()) keep(task_dir, kept, latest);
}

bool TaskLogUploader::upload_staged()
{
    const std::lock_guard upload(upload_mutex_);
    std::vector<std::string> names;
    {
        const std::lock_guard lock(mutex_);
        names.swap(staged_);
    }
    if (names.empty()) return true;
    try {
        upload_files(staging_, remote_root_, names);
    } catch (const TransferError& failure) {
        const std::lock_guard lock(mutex_);
        staged_.insert(staged_.begin(), names.begin(), names.end());
        error_ = failure.what();
        return false;
    }
    std::error_code error;
    for (const auto& name : names) fs::remove(fs::path(staging_) / name, error);
    return true;
}

void TaskLogUploader::flush()
{
    thread_->stop();
    std::error_code error;
    if (!worker_log_.empty() && fs::is_regular_file(worker_log_, error)) stage(worker_log_);
    if (upload_staged()) return;
    const std::lock_guard lock(mutex_);
    std::cerr << fmt::format("shardrun: warning: {} task log file(s) did not reach {} (the results did): {}\n",
                             staged_.size(), remote_root_, error_)
              << std::flush;
}

}  // namespace shardrun::storage

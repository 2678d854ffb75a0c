#include "runner/storage/segment_uploader.hpp"

#include <cstdlib>
#include <vector>

#include "io/layout/output_layout.hpp"
#include "runner/storage/rclone.hpp"

namespace shardrun::storage {

SegmentUploader::SegmentUploader(std::string local_dir, std::string remote_dir, double period_seconds)
    : local_dir_(std::move(local_dir)), remote_dir_(std::move(remote_dir))
{
    for (const auto& segment : io::layout::segments(local_dir_)) uploaded_.insert(segment.filename().string());
    const auto period = std::chrono::milliseconds(static_cast<long>(period_seconds * 1000));
    // A failed round (rclone retried 3 times already) is tried again next period; flush() reports it.
    thread_ = std::make_unique<core::PeriodicThread>(period, [this] {
        upload_new();
        return true;
    });
}

SegmentUploader::~SegmentUploader() = default;

bool SegmentUploader::upload_new()
{
    const std::lock_guard lock(mutex_);
    // Only <seq>.h5: a segment gets that name by rename after its fsync, so it is whole.
    std::vector<std::string> names;
    for (const auto& segment : io::layout::segments(local_dir_)) {
        auto name = segment.filename().string();
        if (uploaded_.count(name) == 0) names.push_back(std::move(name));
    }
    try {
        upload_files(local_dir_, remote_dir_, names);
    } catch (const TransferError& error) {
        error_ = error.what();
        return false;
    }
    uploaded_.insert(names.begin(), names.end());
    error_.clear();
    return true;
}

void SegmentUploader::flush()
{
    thread_->stop();
    if (!upload_new()) SHARDRUN_THROW(TransferError, error_);
}

double upload_period_seconds()
{
    const char* value = std::getenv("SHARDRUN_UPLOAD_INTERVAL");
    if (value == nullptr || *value == '\0') return 2.0;
    const double seconds = std::atof(value);
    return seconds > 0 ? seconds : 2.0;
}

}  // namespace shardrun::storage

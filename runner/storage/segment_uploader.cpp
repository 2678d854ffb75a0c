#include "runner/storage/segment_uploader.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <thread>
#include <vector>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "io/layout/output_layout.hpp"
#include "io/shards/segment.hpp"
#include "runner/storage/rclone.hpp"

namespace fs = std::filesystem;

namespace shardrun::storage {
namespace {

double steady_seconds()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double seconds_from_env(const char* name, double fallback)
{
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') return fallback;
    const double seconds = std::atof(value);
    return seconds > 0 ? seconds : fallback;
}

/**
 * How long one upload call may take before it counts as failed (and the outage is said): 8 s, plus
 * its bytes at 4 MB/s, a slow link. rclone's own timeouts let a call against an endpoint that
 * accepts and never answers live ~30 s; killing it is safe, since an object appears whole or not.
 */
double upload_limit_seconds(const std::string& dir, const std::vector<std::string>& names)
{
    std::uintmax_t bytes = 0;
    for (const auto& name : names) {
        std::error_code error;
        const auto size = std::filesystem::file_size(std::filesystem::path(dir) / name, error);
        if (!error) bytes += size;
    }
    return 8.0 + static_cast<double>(bytes) / 4e6;
}

constexpr double repeat_seconds = 60;   // an outage under way is said again this often
constexpr double longest_backoff = 30;  // seconds between tries at most

}  // namespace

SegmentUploader::SegmentUploader(Settings settings) : settings_(std::move(settings))
{
    for (const auto& segment : io::layout::segments(settings_.local_dir)) uploaded_.insert(segment.filename().string());
    const auto period = std::chrono::milliseconds(static_cast<long>(settings_.period_seconds * 1000));
    thread_ = std::make_unique<core::PeriodicThread>(period, [this] {
        if (steady_seconds() >= next_try_) try_upload(false);
        return taken_by_.empty();
    });
}

SegmentUploader::~SegmentUploader() = default;

std::vector<std::string> SegmentUploader::new_segments() const
{
    // Only <seq>.h5: a segment gets that name by rename after its fsync, so it is whole.
    std::vector<std::string> names;
    for (const auto& segment : io::layout::segments(settings_.local_dir)) {
        auto name = segment.filename().string();
        if (uploaded_.count(name) == 0) names.push_back(std::move(name));
    }
    return names;
}

bool SegmentUploader::try_upload(bool final)
{
    const std::lock_guard lock(mutex_);
    if (!taken_by_.empty()) return false;
    const auto names = new_segments();
    auto* claim = settings_.claim;
    const bool beat = settings_.heartbeat && claim != nullptr && !final && claim->beat_due();
    if (names.empty() && !beat) return true;
    if (claim != nullptr) {
        std::string detail;
        switch (claim->check(detail)) {
        case WriterClaim::Check::taken:
            taken_by_ = detail;
            std::cerr << fmt::format("shardrun: rank {}: this array element is now written by {}; this run uploads "
                                     "nothing more and stops (exit 2)\n",
                                     settings_.rank, detail)
                      << std::flush;
            if (settings_.on_taken) settings_.on_taken();
            return false;
        case WriterClaim::Check::unreachable:
            note_failure(detail, names);
            return names.empty();
        case WriterClaim::Check::ours:
            break;
        }
        if (beat && !claim->beat_if_due() && names.empty()) return true;  // the next heartbeat tries again
    }
    std::vector<std::string> copied;
    try {
        upload_files(settings_.local_dir, settings_.remote_dir, names, single_attempt_flags(), &copied,
                     upload_limit_seconds(settings_.local_dir, names));
    } catch (const TransferError& error) {
        // The files rclone saw copied before the call failed are in the bucket: never named as missing.
        uploaded_.insert(copied.begin(), copied.end());
        std::vector<std::string> left;
        std::copy_if(names.begin(), names.end(), std::back_inserter(left),
                     [this](const std::string& name) { return !uploaded_.count(name); });
        note_failure(error.cause().empty() ? error.what() : error.cause(), left);
        return false;
    }
    uploaded_.insert(names.begin(), names.end());
    if (outage_since_ > 0) {
        std::cerr << fmt::format("shardrun: rank {}: the bucket answers again after {:.0f} s; {} committed task(s) "
                                 "uploaded\n",
                                 settings_.rank, steady_seconds() - outage_since_, tasks_of(names).size())
                  << std::flush;
    }
    outage_since_ = 0;
    failures_ = 0;
    next_try_ = 0;
    return true;
}

void SegmentUploader::note_failure(const std::string& cause, const std::vector<std::string>& names)
{
    const double now = steady_seconds();
    const auto pending = tasks_of(names).size();
    if (outage_since_ == 0) {
        outage_since_ = now;
        outage_since_text_ = fmt::format("{:%H:%M:%S} UTC", fmt::gmtime(std::time(nullptr)));
        last_said_ = 0;
    }
    outage_cause_ = cause;
    if (now - last_said_ >= repeat_seconds) {
        std::cerr << fmt::format("shardrun: rank {}: the bucket is unreachable since {} ({}); {} committed task(s) not "
                                 "yet uploaded; retrying\n",
                                 settings_.rank, outage_since_text_, cause, pending)
                  << std::flush;
        last_said_ = now;
    }
    ++failures_;
    next_try_ = now + std::min(longest_backoff, static_cast<double>(1 << std::min(failures_, 5)));
}

std::vector<std::uint64_t> SegmentUploader::tasks_of(const std::vector<std::string>& names)
{
    std::vector<std::uint64_t> ids;
    for (const auto& name : names) {
        auto found = tasks_.find(name);
        if (found == tasks_.end()) {
            std::string why;
            const auto segment = io::shards::read_segment(fs::path(settings_.local_dir) / name, &why, {.results = false});
            found = tasks_.emplace(name, segment ? segment->rows.task_id : std::vector<std::uint64_t>{}).first;
        }
        ids.insert(ids.end(), found->second.begin(), found->second.end());
    }
    return ids;
}

UploadOutcome SegmentUploader::flush()
{
    thread_->stop();
    while (!try_upload(true)) {
        if (!taken_by_.empty()) return {.taken_by = taken_by_};
        const double now = steady_seconds();
        const double deadline = outage_since_ + settings_.patience_seconds;
        if (now >= deadline) break;
        std::this_thread::sleep_for(std::chrono::duration<double>(std::clamp(next_try_, now, deadline) - now));
    }
    const std::lock_guard lock(mutex_);
    const auto names = new_segments();
    if (names.empty()) return {};
    UploadOutcome outcome{tasks_of(names), outage_since_text_, outage_cause_, ""};
    std::sort(outcome.missing.begin(), outcome.missing.end());
    std::cerr << fmt::format("shardrun: rank {}: the bucket is still unreachable (since {}, {:.0f} s; {}); {} committed "
                             "task(s) not confirmed in the bucket: {}\n",
                             settings_.rank, outcome.since, steady_seconds() - outage_since_, outcome.cause,
                             outcome.missing.size(), id_ranges(outcome.missing))
              << std::flush;
    return outcome;
}

double upload_period_seconds()
{
    return seconds_from_env("SHARDRUN_UPLOAD_INTERVAL", 2.0);
}

double upload_patience_seconds()
{
    return seconds_from_env("SHARDRUN_UPLOAD_PATIENCE", 300.0);
}

std::string id_ranges(std::vector<std::uint64_t> ids)
{
    std::sort(ids.begin(), ids.end());
    std::string text;
    for (std::size_t i = 0; i < ids.size();) {
        std::size_t j = i;
        while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
        if (!text.empty()) text += ", ";
        text += j == i ? fmt::format("{}", ids[i]) : fmt::format("{}-{}", ids[i], ids[j]);
        i = j + 1;
    }
    return text;
}

}  // namespace shardrun::storage

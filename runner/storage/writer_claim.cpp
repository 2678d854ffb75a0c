#include "runner/storage/writer_claim.hpp"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>
#include <thread>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/error.hpp"
#include "runner/storage/local_mirror.hpp"
#include "runner/storage/object_text_upload.hpp"
#include "runner/storage/rclone.hpp"
#include "runner/storage/transfer_failure.hpp"

namespace fs = std::filesystem;

namespace shardrun::storage {
namespace {

/** What a claim object holds. */
struct Claim {
    WriterRun run;
    std::int64_t beat = 0;
    bool released = false;
    std::string ended;  ///< the error that ended the run, when a rank kept it (keep_end)
};

std::optional<Claim> parse_claim(const std::string& text)
{
    try {
        const auto j = nlohmann::json::parse(text);
        return Claim{{j.at("run"), j.at("host"), j.at("started")}, j.at("beat"), j.value("released", false),
                     j.value("ended", std::string())};
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;  // not ours to read (a torn write cannot happen: an object is whole or absent)
    }
}

double steady_seconds()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A read of the claim must not hang: the check before each upload is also how an outage is noticed.
constexpr double read_limit_seconds = 6;

}  // namespace

std::string WriterRun::describe() const
{
    return fmt::format("host {}, started {} (run {})", host, started, id);
}

WriterClaim::WriterClaim(std::string object, std::string element, WriterRun me)
    : object_(std::move(object)), element_(std::move(element)), me_(std::move(me))
{
}

void WriterClaim::take()
{
    RcloneResult result;
    auto text = read_object(object_, 30, result);
    if (!text && !result.not_found()) {
        // The line every failed transfer gives: the endpoint and credentials to check (transfer_failure.hpp).
        SHARDRUN_THROW(TransferError, transfer_failure("read " + object_ + " (which run writes " + element_ + ")", result),
                       exit_task_failed, result.error);
    }
    auto other = text ? parse_claim(*text) : std::nullopt;
    if (other && !other->released && !other->ended.empty()) previous_ = *text;  // status and --resume say it
    if (other && !other->released && other->run.id != me_.id) {
        // A claim of another run: alive while its heartbeat moves. Watched for stale_seconds at most.
        const double since = steady_seconds();
        while (other && !other->released && steady_seconds() - since < stale_seconds) {
            std::this_thread::sleep_for(std::chrono::seconds(1));
            text = read_object(object_, read_limit_seconds, result);
            if (!text && !result.not_found()) continue;  // no answer this time: look again
            const auto now = text ? parse_claim(*text) : std::nullopt;
            if (now && !now->released && (now->run.id != other->run.id || now->beat != other->beat)) {
                SHARDRUN_THROW(TransferError,
                               fmt::format("{} is being written by another run: {}; a second writer would overwrite its "
                                           "objects, so this one stops. Its retry may start once that run has ended (at "
                                           "once, or {:.0f} s after its heartbeat stops)",
                                           element_, now->run.describe(), stale_seconds),
                               exit_bad_input);
            }
            other = now;
        }
        if (other && !other->released) {
            std::cerr << fmt::format("shardrun: taking over {} from the run of {}: its heartbeat stood still for {:.0f} s "
                                     "(it is gone)\n",
                                     element_, other->run.describe(), stale_seconds)
                      << std::flush;
        }
    }
    write(false);
}

WriterClaim::Check WriterClaim::check(std::string& detail)
{
    RcloneResult result;
    const auto text = read_object(object_, read_limit_seconds, result);
    if (!text && !result.not_found()) {
        detail = result.error;
        return Check::unreachable;
    }
    const auto claim = text ? parse_claim(*text) : std::nullopt;
    if (claim && claim->run.id == me_.id) {
        // Another rank of this run kept the error that ends it: rank 0's heartbeats keep it too.
        if (!claim->ended.empty()) {
            std::lock_guard lock(write_mutex_);
            if (ended_.empty()) ended_ = claim->ended;
        }
        return Check::ours;
    }
    detail = claim ? "another run: " + claim->run.describe()
                   : "its claim " + object_ + " is gone (another run with --force?)";
    return Check::taken;
}

bool WriterClaim::beat_due() const
{
    return steady_seconds() - last_beat_ >= heartbeat_seconds;
}

bool WriterClaim::beat_if_due()
{
    if (!beat_due()) return true;
    try {
        write(false);
    } catch (const TransferError&) {
        return false;
    }
    return true;
}

void WriterClaim::release()
{
    try {
        write(true);
    } catch (const TransferError&) {
        // The bucket is away: a retry then waits out the heartbeat instead (stale_seconds).
    }
}

std::string WriterClaim::next_text(bool released)
{
    ++beat_;
    nlohmann::json j = {{"run", me_.id}, {"host", me_.host}, {"started", me_.started}, {"beat", beat_},
                        {"released", released}};
    if (!ended_.empty()) j["ended"] = ended_;
    return j.dump() + "\n";
}

void WriterClaim::keep_end(const std::string& reason)
{
    std::lock_guard lock(write_mutex_);
    ended_ = reason;
    try {
        // From memory: the scratch folder, where write() stages a heartbeat, may be the full disk.
        upload_text(next_text(false), object_, single_attempt_flags());
    } catch (const TransferError&) {
        // The bucket is away too: the run's own stderr said why; status will guess instead.
    }
}

void WriterClaim::write(bool released)
{
    std::lock_guard lock(write_mutex_);
    const auto text = next_text(released);
    const auto file = (fs::path(scratch_dir()) / fmt::format("shardrun-claim-{}-{}", getpid(), me_.id.substr(me_.id.rfind(':') + 1))).string();
    {
        std::ofstream out(file);
        out << text;
        if (!out) SHARDRUN_THROW(TransferError, "cannot write " + file + "; set SHARDRUN_SCRATCH to a writable folder");
    }
    try {
        upload_file(file, object_, single_attempt_flags());
    } catch (...) {
        std::error_code error;
        fs::remove(file, error);
        throw;
    }
    std::error_code error;
    fs::remove(file, error);
    last_beat_ = steady_seconds();
}

WriterRun new_writer_run()
{
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    std::random_device random;
    const auto now = std::time(nullptr);
    return {fmt::format("{}:{}:{:08x}", host, getpid(), random()), host, fmt::format("{:%Y-%m-%d %H:%M:%S} UTC", fmt::gmtime(now))};
}

std::string writer_run_text(const WriterRun& run)
{
    return nlohmann::json{{"run", run.id}, {"host", run.host}, {"started", run.started}}.dump();
}

WriterRun parse_writer_run(const std::string& text)
{
    const auto j = nlohmann::json::parse(text);
    return {j.at("run"), j.at("host"), j.at("started")};
}

}  // namespace shardrun::storage

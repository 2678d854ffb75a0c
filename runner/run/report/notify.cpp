// `notify:`: the run's ending, as JSON, to a shell command and/or a URL (curl), never changing the exit code.
#include "runner/run/report/notify.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "base/error.hpp"
#include "runner/gpu/nvidia_tools.hpp"
#include "runner/process/process.hpp"

extern char** environ;

namespace shardrun::run {
namespace {

/** Grace between the timeout's SIGTERM and SIGKILL: a notify has no work to save. */
constexpr double notify_grace_seconds = 2;

/** The JSON in a file of its own (mkstemp under $TMPDIR or /tmp); removed by the destructor. */
class JsonFile {
public:
    explicit JsonFile(const std::string& json)
    {
        const char* tmp = std::getenv("TMPDIR");
        auto pattern = (std::filesystem::path(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") / "shardrun-notify-XXXXXX").string();
        const int fd = mkstemp(pattern.data());
        if (fd < 0) return;
        path_ = pattern;
        const bool written = write(fd, json.data(), json.size()) == static_cast<ssize_t>(json.size());
        close(fd);
        if (!written) path_.clear();
    }
    ~JsonFile()
    {
        if (!path_.empty()) std::remove(path_.c_str());
    }
    JsonFile(const JsonFile&) = delete;
    JsonFile& operator=(const JsonFile&) = delete;

    const std::string& path() const noexcept { return path_; }

private:
    std::string path_;
};

void warn(const std::string& line) { std::cerr << "shardrun: warning: notify: " << line << "\n" << std::flush; }

/** Runs one notifier; a warning line names `what` when it fails or runs out of time. */
void run_notifier(process::ProcessSpec spec, const std::string& what, double timeout_seconds)
{
    spec.timeout_seconds = timeout_seconds;
    spec.grace_seconds = notify_grace_seconds;
    // Its output is the run's log: a notifier saying why it failed is read there.
    spec.stdout_fd = STDERR_FILENO;
    spec.stderr_fd = STDERR_FILENO;
    const auto ended = process::run_process(spec, [] { return false; });
    if (!ended.started) {
        warn(fmt::format("{} could not start ({}); the run's exit code is unchanged", what, std::strerror(ended.spawn_error)));
    } else if (ended.timed_out) {
        warn(fmt::format("{} was still running after notify.timeout ({} s) and was stopped; the run's exit code is unchanged",
                         what, timeout_seconds));
    } else if (ended.exit_code != 0) {
        warn(fmt::format("{} exited with status {}; the run's exit code is unchanged", what, ended.exit_code));
    }
}

std::vector<std::string> environment_with(const std::vector<std::string>& extra)
{
    std::vector<std::string> env;
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) env.emplace_back(*entry);
    env.insert(env.end(), extra.begin(), extra.end());
    return env;
}

}  // namespace

std::string notify_ending(int exit_code)
{
    if (exit_code == exit_ok) return "end";
    if (exit_code == exit_interrupted || exit_code == exit_drained_without_progress) return "drain";
    return "fail";
}

std::string notify_json(const RunTotals& totals, const std::vector<RankStats>& ranks, const std::string& ending,
                        const NotifyOrigin& origin)
{
    auto j = nlohmann::json::parse(summary_json(totals, ranks));
    j["event"] = ending;
    const std::uint64_t settled = j["ok"].get<std::uint64_t>() + j["failed"].get<std::uint64_t>() +
                                  j["already_done"].get<std::uint64_t>();
    j["pending"] = totals.tasks > settled ? totals.tasks - settled : 0;
    j["elapsed_seconds"] = totals.wall_seconds;
    j["scheduler"] = origin.scheduler;
    j["scheduler_ids"] = origin.ids;
    const FailedTask* first = nullptr;
    for (const auto& rank : ranks) {
        for (const auto& failure : rank.failures) {
            if (first == nullptr || failure.task_id < first->task_id) first = &failure;
        }
    }
    j["first_failure"] = first == nullptr ? nlohmann::json(nullptr)
                                          : nlohmann::json{{"task_id", first->task_id}, {"exit_code", first->exit_code},
                                                           {"message", first->message}};
    return j.dump();
}

void send_notify(const job::NotifySpec& notify, const std::string& ending, const std::string& json)
{
    if (!notify.active() || std::find(notify.on.begin(), notify.on.end(), ending) == notify.on.end()) return;
    try {
        JsonFile file(json + "\n");
        if (file.path().empty()) {
            warn("cannot write the summary to a temporary file (TMPDIR); nothing sent");
            return;
        }
        if (!notify.command.empty()) {
            process::ProcessSpec spec;
            spec.argv = {"/bin/sh", "-c", notify.command};
            spec.env = environment_with({"SHARDRUN_NOTIFY_JSON=" + file.path(), "SHARDRUN_NOTIFY_EVENT=" + ending});
            spec.stdin_path = file.path();
            run_notifier(std::move(spec), "notify.command", notify.timeout_seconds);
        }
        if (notify.url.empty()) return;
        const auto curl = gpu::find_on_path("curl");
        if (curl.empty()) {
            warn("curl is not on PATH, so nothing was POSTed to notify.url; install curl");
            return;
        }
        process::ProcessSpec spec;
        // --fail: an HTTP error status is a failed notify, not a silent success.
        spec.argv = {curl, "--silent", "--show-error", "--fail", "--max-time", fmt::format("{}", notify.timeout_seconds),
                     "-X", "POST", "-H", "Content-Type: application/json", "--data-binary", "@" + file.path(), notify.url};
        spec.env = environment_with({});
        run_notifier(std::move(spec), "the POST to notify.url", notify.timeout_seconds);
    } catch (const std::exception& error) {
        warn(fmt::format("{}; the run's exit code is unchanged", error.what()));
    }
}

}  // namespace shardrun::run

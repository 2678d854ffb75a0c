#include "runner/cli/command_report.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "io/errors.hpp"
#include "io/layout/output_layout.hpp"
#include "io/read/live_snapshot.hpp"
#include "runner/errors.hpp"
#include "runner/storage/remote_copy.hpp"

// Set for this file by cmake/ShardrunInstall.cmake; the fallbacks keep it compiling without.
#ifndef SHARDRUN_REPORT_FROM_BIN
#define SHARDRUN_REPORT_FROM_BIN "../share/shardrun/shardrun-report.py"
#endif
#ifndef SHARDRUN_REPORT_INSTALLED
#define SHARDRUN_REPORT_INSTALLED ""
#endif
#ifndef SHARDRUN_REPORT_SOURCE
#define SHARDRUN_REPORT_SOURCE ""
#endif

extern char** environ;

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace shardrun::cli {
namespace {

bool is_file(const fs::path& path)
{
    std::error_code error;
    return !path.empty() && fs::is_regular_file(path, error);
}

/** Runs argv (argv[0] a path) and returns its exit code; 127 when it cannot start, 1 when killed. */
int spawn_and_wait(const std::vector<std::string>& args, bool quiet)
{
    std::vector<char*> argv;
    for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (quiet) {
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    }
    pid_t pid = 0;
    const int failed = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (failed != 0) return 127;
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

fs::path report_script()
{
    if (const char* chosen = std::getenv("SHARDRUN_REPORT_SCRIPT"); chosen && *chosen) {
        if (!is_file(chosen)) {
            SHARDRUN_THROW(io::OutputError, std::string("report: SHARDRUN_REPORT_SCRIPT=") + chosen + " is not a file");
        }
        return chosen;
    }
    std::error_code error;
    const auto exe = fs::read_symlink("/proc/self/exe", error);
    std::vector<fs::path> candidates;
    if (!error) candidates.push_back((exe.parent_path() / SHARDRUN_REPORT_FROM_BIN).lexically_normal());
    // The source tree before the install prefix: a build tree's binary must not pick up an older
    // installed script; where the sources are gone (Spack, the container image) the prefix serves.
    candidates.emplace_back(SHARDRUN_REPORT_SOURCE);
    candidates.emplace_back(SHARDRUN_REPORT_INSTALLED);
    for (const auto& candidate : candidates) {
        if (is_file(candidate)) return candidate;
    }
    std::ostringstream tried;
    for (const auto& candidate : candidates) {
        if (!candidate.empty()) tried << " " << candidate.string();
    }
    SHARDRUN_THROW(io::OutputError, "report: shardrun-report.py not found (looked at" + tried.str() +
                                    "); set SHARDRUN_REPORT_SCRIPT to its path");
}

/** The first Python that imports h5py and matplotlib. */
std::string report_python()
{
    if (const char* chosen = std::getenv("SHARDRUN_PYTHON"); chosen && *chosen) {
        // Checked as the others are: without it, a Python lacking matplotlib ended in a traceback (trial 41b).
        if (spawn_and_wait({chosen, "-c", "import h5py, matplotlib"}, true) != 0) {
            SHARDRUN_THROW(io::OutputError, fmt::format("report: SHARDRUN_PYTHON={} cannot import h5py and matplotlib "
                                                        "(install them into it: pip install h5py matplotlib; or unset "
                                                        "SHARDRUN_PYTHON to use Debian's python3)",
                                                        chosen));
        }
        return chosen;
    }
    std::vector<std::string> candidates = {"/usr/bin/python3"};
    std::istringstream path(std::getenv("PATH") ? std::getenv("PATH") : "");
    for (std::string folder; std::getline(path, folder, ':');) {
        if (!folder.empty() && is_file(fs::path(folder) / "python3")) {
            candidates.push_back((fs::path(folder) / "python3").string());
            break;
        }
    }
    for (const auto& python : candidates) {
        if (is_file(python) && spawn_and_wait({python, "-c", "import h5py, matplotlib"}, true) == 0) return python;
    }
    SHARDRUN_THROW(io::OutputError, "report: needs a python3 that imports h5py and matplotlib (Debian/Ubuntu: apt-get "
                                    "install python3-h5py python3-matplotlib, as scripts/install-deps does; or set "
                                    "SHARDRUN_PYTHON)");
}

}  // namespace

void ReportCommand::add_options(po::options_description& options, po::positional_options_description& positional)
{
    options.add_options()
        ("output", po::value<std::string>(&path_), "the results file (output.path of the job)")
        ("png", po::value<std::string>(&png_), "the picture to write (default: OUTPUT without .h5 + .report.png)")
        ("html", po::value<std::string>(&html_), "also write an HTML page that embeds the picture")
        ("stats", po::value<std::string>(&stats_), "also write the numbers behind the picture as JSON (runs, bars, "
                                                    "busy and idle per rank, imbalance)")
        ("run-gap", po::value<double>(&run_gap_)->default_value(60.0),
         "seconds with no task running that separate two runs (the file records no run boundaries, so a "
         "--resume is found this way); the time between runs is not idle");
    positional.add("output", 1);
}

CommandDoc ReportCommand::doc() const
{
    return {
        .description =
            "Draws a picture of a run from its results file: a timeline of every attempt per rank (resumed runs "
            "marked), the distribution of task durations, and busy and idle time per rank, into a PNG (by default "
            "beside the output, `.report.png` for `.h5`); `--html` also writes an HTML page that embeds it, "
            "and `--stats` the numbers behind it as JSON. It runs `shardrun-report.py` with a Python "
            "that has h5py and matplotlib (`SHARDRUN_PYTHON` picks it). While a run writes the output, it draws "
            "what was committed so far.\n\n"
            "Reach for it when a run took longer than it should: to see idle ranks, a slow host, stragglers at the "
            "end, or retries, before changing the schedule or the number of ranks.",
        .example = "shardrun report results/heat-sweep.h5 --png heat-sweep.png --html heat-sweep.html",
        .exit_codes = {
            {exit_ok, "the picture (and --html, --stats) was written"},
            {exit_task_failed, "the report script failed (its own message, e.g. a Python traceback) or was killed; or "
                               "an output in a bucket could not be downloaded"},
            {exit_bad_input, "usage error; no results file at that path, or only the shards of a job not merged yet; "
                             "no Python with h5py and matplotlib, or the script not found; a folder to write into "
                             "that does not exist or is not writable"},
        },
    };
}

void ReportCommand::check(const po::variables_map& values)
{
    if (!values.count("output")) SHARDRUN_THROW(UsageError, "report: name the results file, e.g. shardrun report results/heat.h5");
    if (!(run_gap_ > 0)) {
        SHARDRUN_THROW(UsageError, fmt::format("report: --run-gap {}: give seconds above 0", run_gap_));
    }
}

int ReportCommand::run()
{
    // Reads files only, like status: no MPI, so it runs on a login node. While a run writes the
    // output, the picture is of a snapshot of its committed rows (/tasks and /attempts only).
    if (storage::is_remote(path_) && png_.empty()) {
        // Not next to the downloaded copy, which goes when this returns: in the working directory.
        const auto name = storage::parse_remote(path_)->name;
        png_ = (name.ends_with(".h5") ? name.substr(0, name.size() - 3) : name) + ".report.png";
    }
    const auto remote = storage::open_remote_copy(path_);  // an s3:// or gs:// output: a downloaded copy
    if (remote) remote->hold_unfinished();  // unfinished elements read as running ones: their committed rows
    const auto live = io::LiveSnapshot::take_committed(path_, io::SnapshotFields::none);
    if (!live && !fs::exists(path_)) {
        if (const auto shards = io::layout::shards_dir(path_); fs::is_directory(shards)) {
            SHARDRUN_THROW(io::OutputError, "report: " + path_ + ": not merged yet (only " + shards.string() +
                                            "/ exists): run shardrun merge " + path_ + " first");
        }
        SHARDRUN_THROW(io::OutputError, "report: " + path_ + ": no such file");
    }
    const auto script = report_script();
    std::vector<std::string> args = {report_python(), script.string(), live ? live->file().string() : path_};
    // The script's own default, named here to check it was written.
    const auto png = !png_.empty() ? png_ : (path_.ends_with(".h5") ? path_.substr(0, path_.size() - 3) : path_) + ".report.png";
    if (live) {
        // Named after the output, not the snapshot's private folder, which goes when this returns.
        args.insert(args.end(), {"--png", png, "--as", path_});
        if (!live->stopped()) {
            args.insert(args.end(), {"--running", fmt::format("{} {}", live->committed(), live->task_count())});
        }
        std::cerr << live->note() << "\n";
    } else if (!png_.empty()) {
        args.insert(args.end(), {"--png", png_});
    }
    if (!html_.empty()) args.insert(args.end(), {"--html", html_});
    if (!stats_.empty()) args.insert(args.end(), {"--stats", stats_});
    args.insert(args.end(), {"--run-gap", fmt::format("{}", run_gap_)});
    const int code = spawn_and_wait(args, false);
    if (code == 127) SHARDRUN_THROW(io::OutputError, "report: cannot start " + args[0]);
    // A "Python" that ran nothing (SHARDRUN_PYTHON=/usr/bin/true) must not look like a report.
    std::error_code error;
    if (code == 0 && !fs::exists(png, error)) {
        SHARDRUN_THROW(io::OutputError, fmt::format("report: {} exited 0 but wrote no picture {}; is it a python3 (SHARDRUN_PYTHON)?",
                                                    args[0], png));
    }
    return code;
}

}  // namespace shardrun::cli

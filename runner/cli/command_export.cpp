#include "runner/cli/command_export.hpp"

#include <yaml-cpp/yaml.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "io/read/grid_export.hpp"
#include "io/read/live_snapshot.hpp"
#include "runner/errors.hpp"
#include "runner/process/process.hpp"
#include "runner/storage/remote_copy.hpp"
#include "runner/job/sweep.hpp"

// Set for this file by cmake/ShardrunInstall.cmake: the helper package in the source tree, which a
// build tree's binary puts first on PYTHONPATH (an installed `shardrun` package serves otherwise).
#ifndef SHARDRUN_PYTHON_PACKAGE_SOURCE
#define SHARDRUN_PYTHON_PACKAGE_SOURCE ""
#endif

extern char** environ;

namespace po = boost::program_options;

namespace shardrun::cli {
namespace {

[[noreturn]] void not_cartesian(const std::string& path, const std::string& why)
{
    SHARDRUN_THROW(UsageError, "export: --grid needs a cartesian sweep (each sweep: key an axis of values); " + path + " " +
                               why);
}

/**
 * The axes of the cartesian sweep the master at `master` was run with (its stored, resolved
 * job); `path` is the output as the user named it (a snapshot of a running job is elsewhere).
 */
std::vector<io::GridAxis> grid_axes(const std::string& master, const std::string& path)
{
    const auto job = nlohmann::ordered_json::parse(io::stored_job_json(master));
    if (job.contains("data") && !job["data"].is_null()) {
        not_cartesian(path, "is a data job (data:): its tasks are chunks of a range, not points of a grid");
    }
    const auto sweep = job.value("sweep", nlohmann::ordered_json());
    if (!sweep.is_object() || sweep.empty()) not_cartesian(path, "has no sweep:");
    for (const char* key : {"zip", "points", "points_file"}) {
        if (sweep.contains(key)) not_cartesian(path, std::string("sweeps with ") + key + ":, which lists points, not axes");
    }
    // The same parser as `run`, so sizes (linspace, range, ...) and axis order match the task ids.
    const job::YamlContext context(path, {});
    const auto parsed = job::parse_sweep(YAML::Load(sweep.dump()), context,
                                         std::filesystem::path(path).parent_path().string());
    std::vector<io::GridAxis> axes;
    for (const auto& dimension : parsed.dimensions()) axes.push_back({dimension->names().at(0), dimension->size()});
    return axes;
}

/**
 * `python3 -m shardrun.export MASTER FILE` (Python from SHARDRUN_PYTHON, else python3 from PATH:
 * the Python the user installed pyarrow into); its exit code, 2 when it cannot start.
 */
int export_parquet(const std::string& master, const std::string& target)
{
    const char* chosen = std::getenv("SHARDRUN_PYTHON");
    const std::string python = chosen != nullptr && *chosen != '\0' ? chosen : "python3";
    std::vector<std::string> env;
    std::string pythonpath = SHARDRUN_PYTHON_PACKAGE_SOURCE;
    for (char** entry = environ; *entry != nullptr; ++entry) {
        const std::string_view text(*entry);
        if (text.rfind("PYTHONPATH=", 0) == 0) {
            if (text.size() > 11) pythonpath += (pythonpath.empty() ? "" : ":") + std::string(text.substr(11));
            continue;
        }
        env.emplace_back(text);
    }
    if (!pythonpath.empty()) env.push_back("PYTHONPATH=" + pythonpath);
    process::ProcessSpec spec;
    spec.argv = {python, "-m", "shardrun.export", master, target};
    spec.env = std::move(env);
    spec.stdout_fd = STDOUT_FILENO;
    spec.stderr_fd = STDERR_FILENO;
    const auto result = process::run_process(spec, [] { return false; });
    if (!result.started) {
        SHARDRUN_THROW(UsageError, "export: --parquet runs " + python + " with pyarrow, and it cannot be started; "
                                   "install python3 and pyarrow, or set SHARDRUN_PYTHON");
    }
    return result.exit_code;
}

}  // namespace

void ExportCommand::add_options(po::options_description& options, po::positional_options_description& positional)
{
    options.add_options()
        ("output", po::value<std::string>(&path_), "the results file (output.path of the job)")
        ("grid", po::value<std::string>(&grid_), "write FILE.nc: each result field over the sweep axes "
                                                 "(lr x batch x ... x field dims), for xr.open_dataset")
        ("parquet", po::value<std::string>(&parquet_), "write FILE.parquet: params, task columns and results "
                                                       "joined, one row per item (with data.id's id) for a rows "
                                                       "field, else one per task (needs pyarrow)");
    positional.add("output", 1);
}

CommandDoc ExportCommand::doc() const
{
    return {
        .description =
            "Writes a results file in a form other tools open directly. `--grid FILE.nc` writes the results of a "
            "cartesian sweep as netCDF-4 variables over the sweep's axes (one dimension per swept param), which "
            "`xarray.open_dataset` reads as they are. `--parquet FILE.parquet` writes params, per-task columns and "
            "results joined in one table, one row per task (per item for a rows field), through `python3 -m "
            "shardrun.export` with pyarrow (`SHARDRUN_PYTHON` picks the Python). While a run writes the output, it "
            "exports what was committed so far (tasks not run yet hold the fill value) and says so on stderr.\n\n"
            "Reach for it to hand results to xarray, pandas, Spark or DuckDB, or to plot a sweep over its axes, "
            "without reading the HDF5 layout yourself.",
        .example = "shardrun export results/heat-sweep.h5 --grid heat-sweep.nc",
        .exit_codes = {
            {exit_ok, "the file was written"},
            {exit_task_failed, "--parquet: the Python program that writes it failed (its own message, e.g. a "
                               "traceback); or an output in a bucket could not be downloaded"},
            {exit_bad_input, "usage error; no results file at that path; --grid of a job that is not a cartesian "
                             "sweep (a data job, zip:, points:) or a FILE.nc it cannot write; --parquet without a "
                             "python3 that has pyarrow, h5py and numpy"},
        },
    };
}

void ExportCommand::check(const po::variables_map& values)
{
    if (!values.count("output")) SHARDRUN_THROW(UsageError, "export: name the results file, e.g. shardrun export results/x.h5 --grid x.nc");
    if (values.count("grid") == values.count("parquet")) {
        SHARDRUN_THROW(UsageError, "export: say what to write, one of --grid FILE.nc or --parquet FILE.parquet");
    }
}

int ExportCommand::run()
{
    const auto remote = storage::open_remote_copy(path_);  // an s3:// or gs:// output: a downloaded copy
    if (remote) remote->hold_unfinished();  // unfinished elements read as running ones: their committed rows
    // While a run writes the output, or after one stopped short of its master: a snapshot of what
    // it committed (tasks not yet run keep the fill value).
    const auto live = io::LiveSnapshot::take_committed(path_, io::SnapshotFields::all);
    const auto master = live ? live->file().string() : path_;
    if (!parquet_.empty()) {
        if (!live && !std::filesystem::exists(master)) SHARDRUN_THROW(UsageError, "export: " + path_ + ": no such file");
        if (live) std::cerr << live->note() << "\n";
        return export_parquet(master, parquet_);
    }
    const auto axes = grid_axes(master, path_);
    io::export_grid(master, axes, grid_);
    if (live) {
        std::cerr << live->note() << "\n";
    }
    std::string shape;
    for (const auto& axis : axes) shape += (shape.empty() ? "" : " x ") + axis.name + " (" + std::to_string(axis.size) + ")";
    std::cout << "shardrun: wrote " << grid_ << ": results over " << shape << "\n";
    return exit_ok;
}

}  // namespace shardrun::cli

#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/result_types.hpp"
#include "runner/job/cost_spec.hpp"
#include "runner/job/gpu_sharing_spec.hpp"
#include "runner/job/job_fields.hpp"
#include "runner/job/param_map.hpp"
#include "runner/job/sweep.hpp"

namespace shardrun::job {

enum class ScheduleKind { block, cyclic, dynamic };
enum class DevicePreference { automatic, cpu, cuda };

/** schedule.kind's word as the enum: static and block are one kind. */
constexpr ScheduleKind schedule_kind_named(std::string_view word)
{
    return word == "cyclic" ? ScheduleKind::cyclic : word == "dynamic" ? ScheduleKind::dynamic : ScheduleKind::block;
}

/** device's word as the enum. */
constexpr DevicePreference device_named(std::string_view word)
{
    return word == "cpu" ? DevicePreference::cpu : word == "cuda" ? DevicePreference::cuda : DevicePreference::automatic;
}

/** `schedule:` — static block, static cyclic, or dynamic claims of a shrinking size. */
struct ScheduleSpec {
    ScheduleKind kind = schedule_kind_named(field_default<std::string_view>("schedule.kind"));
    std::uint64_t min_claim = field_default<std::uint64_t>("schedule.min_claim");  ///< dynamic: smallest claim (the tail)
    std::uint64_t max_claim = field_default<std::uint64_t>("schedule.max_claim");  ///< dynamic: largest claim; 0 = no cap
};

/** `data:` — a range of items split into chunks; every task gets [start, end). */
struct DataSpec {
    bool present = false;
    std::uint64_t items = 0;
    std::uint64_t chunk = 0;
    std::string input;  ///< "file.h5:/dataset" when items come from a dataset's first dimension, or a line file
    /** hdf5 | text | jsonl | csv | parquet: data.format, else what data.input's suffix says (hdf5 without one). */
    std::string format;
    std::string id;  ///< data.id: the records' key or column whose values label the items; empty: none
    bool line_input() const { return format == "text" || format == "jsonl" || format == "csv"; }
};

/** `output:` */
struct OutputSpec {
    std::string path;               ///< relative to the working directory
    std::string layout{field_default<std::string_view>("output.layout")};  ///< shards | single
};

/** `notify:` — who hears of the run's end (runner/run/report/notify.hpp); inactive without command and url. */
struct NotifySpec {
    std::string command;  ///< a /bin/sh command line; empty: none
    std::string url;      ///< POSTed to with curl; empty: none
    std::vector<std::string> on{"end", "fail", "drain"};  ///< the endings that notify
    double timeout_seconds = field_default<double>("notify.timeout");

    bool active() const noexcept { return !command.empty() || !url.empty(); }
};

/** `gpu_admission:` — the check each GPU passes before its first task (issue 38); `off`: none. */
struct GpuAdmissionSpec {
    bool enabled = true;
    double min_fraction = field_default<double>("gpu_admission.min_fraction");
    double spec_fraction = field_default<double>("gpu_admission.spec_fraction");
    std::string precision;  ///< bf16 | fp32 | fp64; empty: derived from the task's dtype (gpu_admission.cpp)
};

/** `exec:` — the user's program; argv elements may contain {param} templates. */
struct ExecSpec {
    std::vector<std::string> argv;
    std::vector<std::pair<std::string, std::string>> env;  ///< extra variables, templated too
    std::vector<io::FieldSpec> results;                    ///< declared result fields
    /** The job file's folder, absolute: argv[0] with a '/' and relative paths resolve against it. */
    std::string base_dir;
    std::string cwd;  ///< exec.cwd, absolute; the program's working directory (default base_dir)
    /** task: the program runs once per task; worker: once per rank, fed tasks on stdin (issue 14). */
    enum class Mode { task, worker } mode = mode_named(field_default<std::string_view>("exec.mode"));
    int worker_restarts = field_default<int>("exec.worker_restarts");  ///< worker deaths in a row, over different tasks, that stop the rank
    double worker_start_timeout_seconds = field_default<double>("exec.worker_start_timeout");  ///< spawn to ready line
    /** Keep result files (result.json, <field>.npy, result.h5) in <output>.tasks/ after they are read. */
    bool keep_files = field_default<bool>("exec.keep_files");
    /** Keep a task's checkpoint folder (<output>.tasks/<id>/checkpoint) after the task succeeded. */
    bool keep_checkpoints = field_default<bool>("exec.keep_checkpoints");
    /** An output in a bucket: how often the tasks' checkpoint folders go up (0: only when the run ends or drains). */
    double checkpoint_sync_seconds = field_default<double>("exec.checkpoint_sync");

    /** exec.mode's word as the enum. */
    static constexpr Mode mode_named(std::string_view word) { return word == "worker" ? Mode::worker : Mode::task; }
};

/**
 * Where the job file gave the fields that are checked after parsing (parameters against the
 * task kind, data.input against its file): "job.yaml:3:15", or "--set params.n".
 */
struct FieldSites {
    /** By path: "task", "params" (the section), "params.<name>", "data.input", "data.chunk". */
    std::map<std::string, std::string> values;
    /** The key of each parameter the job wrote under params: ("params.<name>"). */
    std::map<std::string, std::string> keys;

    /** values[path], else `fallback`. */
    std::string value(const std::string& path, const std::string& fallback) const
    {
        const auto it = values.find(path);
        return it != values.end() ? it->second : fallback;
    }
};

/** fail_fast: true. Five alike failures in a row, before any success, is a broken job, not bad luck. */
inline constexpr std::int64_t default_fail_fast = field_default<std::int64_t>("fail_fast");

/** A validated job file with its --set overrides applied. */
struct JobSpec {
    std::string file;           ///< path as given
    std::string text;           ///< the job file's text, stored in the results file
    std::string resolved_json;  ///< canonical JSON of the job after overrides (hashed for resume)
    std::string name;
    std::string task;
    ParamMap params;
    Sweep sweep;
    DataSpec data;
    ScheduleSpec schedule;
    DevicePreference device = device_named(field_default<std::string_view>("device"));
    int gpus_per_task = field_default<int>("gpus_per_task");
    int gpus_per_rank = field_default<int>("gpus_per_rank");  ///< GPUs one process sees (CUDA_VISIBLE_DEVICES with N entries, packed by node)
    int slots_per_rank = field_default<int>("slots_per_rank");
    GpuSharingSpec gpu_sharing;  ///< tasks_per_gpu, gpu_sharing, gpu_threads, gpu_memory (issue 26)
    int retries = field_default<int>("retries");
    double timeout_seconds = field_default<double>("timeout");  ///< 0 = none
    double timeout_grace_seconds = field_default<double>("timeout_grace");
    /** A group member that does not join a collective within this ends the job naming it; 0: never. */
    double collective_timeout_seconds = field_default<double>("collective_timeout");
    /** A rank silent (no heartbeat) this long is named and ends the job; 0: never. */
    double rank_timeout_seconds = field_default<double>("rank_timeout");
    /** After SIGUSR1, running tasks may finish this long before they are stopped; 90 s fits Slurm's --signal=B:USR1@120. */
    double drain_timeout_seconds = field_default<double>("drain_timeout");
    /** GPU telemetry (NVML) sampling period of each rank with a GPU; 0 (`off`): no telemetry, no NVML loaded. */
    double telemetry_interval_seconds = field_default<double>("telemetry_interval");
    /** Stop taking tasks after this many failed (after their retries); 0: no limit. */
    std::int64_t max_failures = field_default<std::int64_t>("max_failures");
    /** Stop when the first this-many tasks all failed with one exit code; 0: off. */
    std::int64_t fail_fast = default_fail_fast;
    OutputSpec output;
    NotifySpec notify;
    ExecSpec exec;
    FieldSites sites;
    /** `auto_device: {cpu_if: "n < 1000"}`: under device: auto, tasks it holds for run on the CPU
     *  (runner/job/auto_device_rule.hpp); empty: the kind's built-in rule, if it has one. Checked when parsed. */
    std::string auto_device_cpu_if;
    /** Device faults (runner/gpu/quarantine.hpp) after which a GPU is quarantined for the rest of the job. */
    int gpu_fault_limit = field_default<int>("gpu_fault_limit");
    PriceSpec price;    ///< `price:`; a task's cost_usd comes from it
    BudgetSpec budget;  ///< `budget:`; the job drains when its projected spend would pass it
    /** The GPUs' check before their first task (issue 38, runner/run/loop/gpu_admission.hpp). */
    GpuAdmissionSpec gpu_admission;
};

const char* schedule_name(ScheduleKind kind) noexcept;

}  // namespace shardrun::job

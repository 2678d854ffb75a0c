#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace shardrun::job {

/**
 * The one table of the job file's fields (issue 33, deliverable 3): every key a job file may
 * hold, once, with its section, type, typed default, what is allowed and one line of doc.
 * The parser takes from it the keys each mapping accepts (and so the "did you mean"
 * suggestions for the file and for --set paths), the words of every choice, the minimum of
 * every integer, and the defaults: JobSpec's members are initialised from field_default()
 * at compile time, so a default is written here and nowhere else. README's job-file
 * reference is checked against it (tests/runner/job/job_fields_test.cpp).
 */

/** What a field's value is; the readers in section_reads.hpp check it. */
enum class FieldType {
    text,      ///< a non-empty string
    integer,   ///< a whole number >= JobField::minimum
    boolean,   ///< true | false
    duration,  ///< 90, 30s, 10m, 2h, 1h30m (seconds)
    size,      ///< bytes with K, M, G or T
    choice,    ///< one of the words in JobField::allowed ("a|b|c")
    mapping,   ///< a section of its own fields (section == this field's path)
    names,     ///< a mapping of the user's names (params, sweep, exec.env, exec.results)
    list,      ///< a list
    special,   ///< a form of its own, spelled in JobField::allowed (fail_fast, telemetry_interval, schedule)
};

/** A field the job file must give (task; exec.argv with task: exec). */
struct Required {
    friend constexpr bool operator==(Required, Required) = default;
};
/** A default computed from other fields or from the file; `rule` says how. */
struct Derived {
    std::string_view rule;
    friend constexpr bool operator==(Derived, Derived) = default;
};
/** A field whose absence means "not used" (data, sweep, auto_device...). */
struct Absent {
    friend constexpr bool operator==(Absent, Absent) = default;
};

/** A field's default as the parser uses it: typed, or one of the three kinds of "no value". */
using FieldDefault = std::variant<Absent, Required, Derived, bool, std::int64_t, double, std::string_view>;

/** One field of the job file. */
struct JobField {
    std::string_view section;  ///< "" at the top level, else the mapping it sits in ("schedule", "exec")
    std::string_view name;
    FieldType type;
    FieldDefault fallback;
    /** choice: the words, '|'-separated; integer: what the minimum does not say; otherwise what may be written. */
    std::string_view allowed;
    std::string_view doc;  ///< one line
    std::int64_t minimum = 0;  ///< integer: the smallest value
};

// clang-format off
/**
 * Every field, top-level keys first in the order the file is read (and the order the "allowed:"
 * lists print), then each section's keys.
 */
inline constexpr JobField job_fields[] = {
    {"", "name", FieldType::text, Derived{"the job file's name without extension"}, "letters, digits, '.', '_' and '-'",
     "the job's name: the default output file and the HDF5 root's name attribute"},
    {"", "task", FieldType::text, Required{}, "a task kind (`shardrun kinds`)", "what each task runs"},
    {"", "params", FieldType::names, Absent{}, "a mapping of names to scalars",
     "the same for every task; a name is fixed here or swept, not both"},
    {"", "sweep", FieldType::names, Absent{}, "axis: [values] | {linspace|logspace|range: [a, b, n]}, zip, points, points_file",
     "cartesian product of the axes, last axis fastest"},
    {"", "data", FieldType::mapping, Absent{}, "{items, chunk} or {input, chunk}", "a range of items split into chunks, one per task"},
    {"", "schedule", FieldType::special, Derived{"the defaults of its keys: {kind: dynamic, min_claim: 1}"}, "static | block | cyclic | dynamic, or {kind, min_claim, max_claim}",
     "how tasks are dealt to ranks"},
    {"", "device", FieldType::choice, std::string_view("auto"), "auto|cpu|cuda", "where tasks run; per task: a `device` param or sweep axis"},
    {"", "gpus_per_task", FieldType::integer, std::int64_t{1}, "", "ranks form groups of this size that run each task together", 1},
    {"", "gpus_per_rank", FieldType::integer, std::int64_t{1}, "", "GPUs one process sees (CUDA_VISIBLE_DEVICES with N entries, packed by node)", 1},
    {"", "slots_per_rank", FieldType::integer, std::int64_t{1}, "", "tasks run at once on one rank (1 when gpus_per_task > 1)", 1},
    {"", "collective_timeout", FieldType::duration, 600.0, "a duration; 0: never",
     "a group member that does not join a collective within this ends the job naming it (an exec group's wait for its members' programs is none: rank_timeout covers it)"},
    {"", "rank_timeout", FieldType::duration, 60.0, "a duration; 0: never", "a rank silent (no heartbeat) this long is named and ends the job"},
    {"", "retries", FieldType::integer, std::int64_t{0}, "", "extra attempts for a failed task", 0},
    {"", "timeout", FieldType::duration, 0.0, "a duration; 0: none", "per attempt; SIGTERM to the task's process group, exit code 124"},
    {"", "timeout_grace", FieldType::duration, 5.0, "a duration", "SIGKILL this long after a timeout's SIGTERM"},
    {"", "drain_timeout", FieldType::duration, 90.0, "a duration",
     "after SIGUSR1, running tasks may finish this long before they are stopped (fits Slurm's --signal=B:USR1@120)"},
    {"", "telemetry_interval", FieldType::special, 1.0, "off (or 0), or a period of at least 100ms",
     "GPU telemetry (NVML) sampling period of each rank with a GPU"},
    {"", "max_failures", FieldType::integer, std::int64_t{0}, "absent: no limit",
     "stop taking tasks after this many failed (after their retries)", 1},
    {"", "fail_fast", FieldType::special, std::int64_t{5}, "true (= 5) | false | K >= 1",
     "stop when the first K tasks to finish all failed with one exit code"},
    {"", "output", FieldType::mapping, Absent{}, "{path, layout}", "where the results go"},
    {"", "exec", FieldType::mapping, Absent{}, "{argv, ...}; only with task: exec", "the user's program"},
    {"", "auto_device", FieldType::mapping, Absent{}, "{cpu_if}", "under device: auto, which tasks run on the CPU"},
    {"", "gpu_fault_limit", FieldType::integer, std::int64_t{2}, "", "device faults after which a GPU is quarantined for the rest of the job", 1},
    {"", "gpu_admission", FieldType::special, Derived{"on, with the defaults of its keys"}, "off, or {min_fraction, spec_fraction, precision}",
     "before its first task each GPU runs a short GEMM and copy check; a slow or faulty GPU takes no task"},
    {"", "tasks_per_gpu", FieldType::integer, std::int64_t{1}, "", "tasks at once on each rank's GPU (sets slots_per_rank)", 1},
    {"", "gpu_sharing", FieldType::choice, std::string_view("time"), "time|mps", "how the tasks sharing one GPU are fenced from each other"},
    {"", "gpu_threads", FieldType::integer, Derived{"100 / tasks_per_gpu, rounded down"}, "at most 100; with gpu_sharing: mps",
     "the share of the GPU's SMs each task may use (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE)", 1},
    {"", "gpu_memory", FieldType::size, std::int64_t{0}, "a size such as 10G; with gpu_sharing: mps; absent: no limit",
     "GPU memory each task may allocate"},
    {"", "price", FieldType::mapping, Absent{}, "{gpu_hour, node_hour} (dollars) or {machine}",
     "what an hour costs: each task's /tasks/cost_usd, the report's totals"},
    {"", "budget", FieldType::special, Absent{}, "dollars (25, \"$25\") or energy (\"3 kWh\"); dollars need price",
     "the job drains (exit 3) before its projected spend passes this; --resume --set budget=... goes on"},
    {"", "notify", FieldType::mapping, Absent{}, "{command, url, on, timeout}; command or url or both",
     "tell someone when the run ends: a command, a URL, or both, with the summary as JSON"},

    {"schedule", "kind", FieldType::choice, std::string_view("dynamic"), "static|block|cyclic|dynamic",
     "static and block: contiguous blocks; cyclic: round robin; dynamic: claims of a shrinking size"},
    {"schedule", "min_claim", FieldType::integer, std::int64_t{1}, "", "dynamic: the smallest claim (the tail)", 1},
    {"schedule", "max_claim", FieldType::integer, std::int64_t{0}, "at least min_claim; absent: no cap", "dynamic: the largest claim", 1},

    {"gpu_admission", "min_fraction", FieldType::special, 0.8, "a number above 0 and at most 1",
     "a GPU whose GEMM or copy is below this fraction of the median of the job's GPUs of its model takes no task"},
    {"gpu_admission", "spec_fraction", FieldType::special, 0.5, "a number above 0 and at most 1",
     "a GPU with no peer of its model takes no task below this fraction of its model's spec peak"},
    {"gpu_admission", "precision", FieldType::special, Derived{"the task's dtype param (float32: fp32, float64: fp64), else bf16"},
     "bf16 | fp32 | fp64", "the element type of the check's GEMM"},

    {"data", "items", FieldType::integer, Absent{}, "give items or input", "how many items", 1},
    {"data", "chunk", FieldType::integer, Required{}, "", "items per task; params.chunk defaults to it", 1},
    {"data", "input", FieldType::text, Absent{}, "file.h5:/dataset, or a .txt, .jsonl, .csv or .parquet file",
     "items = the dataset's first dimension, or the file's records (lines)"},
    {"data", "format", FieldType::text, Derived{"from data.input's suffix"}, "hdf5, text, jsonl, csv or parquet",
     "how data.input is read, when its suffix does not say"},
    {"data", "id", FieldType::text, Absent{}, "a JSON key or CSV column of data.input's records",
     "each record's id becomes the coordinate of the results' item dimension"},

    {"output", "path", FieldType::text, std::string_view("results/<name>.h5"), "a path, or s3://, gs://, rclone://",
     "relative to the working directory"},
    {"output", "layout", FieldType::choice, std::string_view("shards"), "shards|single", "single needs a shared file system"},

    {"exec", "argv", FieldType::list, Required{}, "[program, arg, ...] with {name} templates", "no shell is involved"},
    {"exec", "env", FieldType::names, Absent{}, "a mapping of variable names to values", "extra environment, templated too"},
    {"exec", "results", FieldType::names, Absent{}, "field: dtype or [dtype, dims...]", "the result fields the program writes"},
    {"exec", "mode", FieldType::choice, std::string_view("task"), "task|worker",
     "task: one process per task; worker: one per rank, tasks on stdin"},
    {"exec", "worker_restarts", FieldType::integer, std::int64_t{3}, "with mode: worker", "worker deaths in a row, over different tasks, that stop the rank", 1},
    {"exec", "worker_start_timeout", FieldType::duration, 600.0, "a duration above 0; mode worker", "from start to its ready line"},
    {"exec", "keep_files", FieldType::boolean, false, "true|false", "keep result files in <output>.tasks/ after they are read"},
    {"exec", "keep_checkpoints", FieldType::boolean, false, "true|false",
     "keep a task's checkpoint folder ($SHARDRUN_CHECKPOINT_DIR) after it succeeded"},
    {"exec", "checkpoint_sync", FieldType::duration, 60.0, "a duration; 0: only when the run ends or drains",
     "with an output in a bucket: how often the tasks' checkpoint folders go up to it"},
    {"exec", "python", FieldType::text, Absent{}, "a Python interpreter: a path (relative to the job file's folder) or a name in PATH",
     "replaces an argv[0] of python or python3 (default: python3 as PATH finds it)"},
    {"exec", "cwd", FieldType::text, Derived{"the job file's folder"}, "a folder, relative to the job file's folder",
     "the program's working directory"},

    {"price", "gpu_hour", FieldType::special, Absent{}, "a number of dollars, 0 or more", "per GPU-hour"},
    {"price", "node_hour", FieldType::special, Absent{}, "a number of dollars, 0 or more", "per node-hour (the node's tasks share it)"},
    {"price", "machine", FieldType::text, Absent{}, "a machine type of the README's table (p5.48xlarge, a3-highgpu-8g...)",
     "node_hour from that machine type's on-demand list price"},

    {"notify", "command", FieldType::text, Absent{}, "a shell command line",
     "run by /bin/sh on rank 0, the summary JSON on stdin and in the file $SHARDRUN_NOTIFY_JSON"},
    {"notify", "url", FieldType::text, Absent{}, "an http:// or https:// URL", "the summary JSON is POSTed to it with curl"},
    {"notify", "on", FieldType::list, Derived{"every ending: [end, fail, drain]"}, "a list of end, fail, drain (or one of them)",
     "end: every task ok; fail: a task failed or the run gave up; drain: a drain or stop cut the run short"},
    {"notify", "timeout", FieldType::duration, 30.0, "a duration above 0",
     "a notify command or POST still running after this is stopped; the run's exit code never changes"},

    {"auto_device", "cpu_if", FieldType::text, Required{}, "a rule such as \"n < 1000 and m < 1000\"", "tasks it holds for run on the CPU"},
};
// clang-format on

/** The row of `section`.`name`; a compile error (in a constant expression) or nullptr when there is none. */
constexpr const JobField* find_job_field(std::string_view section, std::string_view name)
{
    for (const auto& field : job_fields) {
        if (field.section == section && field.name == name) return &field;
    }
    return nullptr;
}

/** The row of a dotted path: "retries", "schedule.min_claim". */
constexpr const JobField* find_job_field(std::string_view path)
{
    const auto dot = path.find('.');
    return dot == std::string_view::npos ? find_job_field("", path) : find_job_field(path.substr(0, dot), path.substr(dot + 1));
}

/**
 * The typed default of `path`, for JobSpec's member initialisers: field_default<int>("retries").
 * consteval, so a path that is not a row, or a row whose default is not a T, does not compile.
 */
template <class T>
consteval T field_default(std::string_view path)
{
    const JobField* field = find_job_field(path);
    if (field == nullptr) throw "field_default: no such job field";
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, double> || std::is_same_v<T, std::string_view>) {
        return std::get<T>(field->fallback);
    } else {
        return static_cast<T>(std::get<std::int64_t>(field->fallback));
    }
}

/** The keys a mapping takes, in the table's order ("" : the top-level keys). */
std::vector<std::string> job_field_names(std::string_view section);

/** A choice field's words, in the table's order. */
std::vector<std::string> job_field_choices(std::string_view path);

/** An integer field's smallest value. */
std::int64_t job_field_minimum(std::string_view path);

/** The dotted path of a row: "retries", "schedule.kind". */
std::string job_field_path(const JobField& field);

/** The default as the reference prints it: "5", "dynamic", "(required)", "(the job file's folder)", "(absent)". */
std::string job_field_default_text(const JobField& field);

/** What may be written, as the reference prints it: "an integer >= 1; absent: no limit", "auto, cpu, cuda". */
std::string job_field_allowed_text(const JobField& field);

}  // namespace shardrun::job

#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

/**
 * @file
 * io's vocabulary: what an output is (path, layout, resume/force), the job it belongs to, and
 * the /params and /ranges columns. No MPI or HDF5 type: the sinks, the master, resume, params
 * and manifests include this; only the runner's facade (io/job_output.hpp) adds the calls.
 */
namespace shardrun::io {

/** output.layout of the job file. */
enum class Layout { shards, single };

/** Where and how the output is written. */
struct OutputOptions {
    std::string path;                  ///< master file, e.g. results/heat.h5; shards go to <path>.shards/
    Layout layout = Layout::shards;
    bool resume = false;               ///< --resume: keep committed tasks of the same job
    bool force = false;                ///< --force: delete an existing output first
    /** shards: record() commits by itself once this many result bytes are buffered. */
    std::size_t auto_commit_bytes = std::size_t{64} << 20;
    /** shards: keep the segments once a complete master holds their rows (for tests that read them again). */
    bool keep_shards = false;
};

/** Provenance and shape of the job, filled by the runner; stored in every output file. */
struct JobMetadata {
    std::string job_name;
    std::string job_file;              ///< path of the job file as given
    std::string job_text;              ///< its text
    std::string params_json;           ///< resolved parameters; its SHA-256 identifies the job
    std::string shardrun_version;
    std::string git_commit;
    int array_index = 0;
    int array_count = 1;
    int world_size = 1;
    std::vector<std::string> hostnames;
    std::map<std::string, std::string> library_versions;  ///< e.g. {"hdf5": "1.10.8", "mpi": ...}
    std::uint64_t task_count = 0;      ///< T, tasks of the whole job
    std::uint64_t first_task = 0;      ///< first task id of this array element
    std::uint64_t end_task = 0;        ///< one past its last task id (first == end: no tasks)
    std::vector<std::string> param_names;
    /**
     * params_json of the jobs this one extends (a --resume whose sweep gained values), oldest
     * first; empty for a job never extended. Their ids come first: ids 0..T0-1 are the first
     * job's, then each extension appends the points it added (README, "Extending a sweep").
     */
    std::vector<std::string> earlier_jobs;
    std::string scheduler = "none";  ///< slurm | aws-batch | gcp-batch | pbs | lsf | mpirun | none
    /** The scheduler's job, array, step and task ids as its variables gave them (name -> value), e.g. SLURM_JOB_ID. */
    std::map<std::string, std::string> scheduler_ids;
};

/** One /params/<name> column: one value per task of the whole job (length T). */
struct ParamColumn {
    std::string name;
    std::variant<std::vector<double>, std::vector<std::int64_t>, std::vector<std::string>> values;
};

/** /ranges/start and /ranges/end (length T); both empty when the job has no data ranges. */
struct TaskRanges {
    std::vector<std::int64_t> start;
    std::vector<std::int64_t> end;
};

/** Lowercase hex SHA-256 of `text` (OpenSSL EVP). */
std::string sha256_hex(const std::string& text);

/**
 * The job identity stored in outputs: sha256_hex(metadata.params_json), or for an extended job
 * the hash of its whole lineage (earlier_jobs then params_json), since that decides its ids.
 */
std::string job_hash(const JobMetadata& metadata);

/** The identity of the job `metadata` extends (its lineage less the last job); "" when it extends none. */
std::string extended_job_hash(const JobMetadata& metadata);

}  // namespace shardrun::io

#include "output_test_support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "io/attempt_log.hpp"
#include "tests/support/temp_dir.hpp"

namespace shardrun::io::testing {

namespace {

/** Removes the scratch folders when the test program exits normally (forked children _exit). */
struct ScratchFolders {
    std::vector<std::string> paths;
    ~ScratchFolders()
    {
        if (std::getenv("SHARDRUN_KEEP_TEST_FILES")) return;
        for (const auto& path : paths) {
            std::error_code ignored;
            std::filesystem::remove_all(path, ignored);
        }
    }
};

ScratchFolders scratch_folders;

}  // namespace

std::string scratch_dir()
{
    auto name = shardrun::testing::make_temp_dir("shardrun-io-test-");
    scratch_folders.paths.push_back(name);
    return name;
}

std::vector<FieldSpec> test_fields()
{
    return {FieldSpec{"energy", DType::float64, {}, "J"}, FieldSpec{"spectrum", DType::float32, {4}, ""},
            FieldSpec{"counts", DType::int32, {2, 3}, "1"}};
}

JobMetadata test_metadata(std::uint64_t task_count, int array_count, int array_index, const std::string& params_json)
{
    JobMetadata m;
    m.job_name = "io-test";
    m.job_file = "io-test.yaml";
    m.job_text = "name: io-test\ntask: exec\n";
    m.params_json = params_json;
    m.shardrun_version = "0.1.0";
    m.git_commit = "abc123";
    m.array_index = array_index;
    m.array_count = array_count;
    m.world_size = 1;
    m.hostnames = {"node0"};
    m.library_versions = {{"hdf5", "1.10.8"}, {"mpi", "Open MPI 4.1"}};
    m.task_count = task_count;
    const auto block = (task_count + array_count - 1) / array_count;
    m.first_task = std::min<std::uint64_t>(task_count, block * array_index);
    m.end_task = std::min<std::uint64_t>(task_count, m.first_task + block);
    m.param_names = {"alpha", "n", "label"};
    return m;
}

double expected_value(std::uint64_t id, std::size_t f, std::size_t k) { return double(id) * 10.0 + double(f) * 1000.0 + double(k); }

bool fails(std::uint64_t id) { return id % 7 == 3; }

TaskValues test_values(std::uint64_t id, const std::vector<FieldSpec>& fields)
{
    if (fails(id)) return {};
    TaskValues values;
    for (std::size_t f = 0; f < fields.size(); ++f) {
        std::vector<std::byte> bytes(fields[f].bytes());
        for (std::size_t k = 0; k < fields[f].elements(); ++k) {
            const double v = expected_value(id, f, k);
            const float v32 = static_cast<float>(v);
            const auto i32 = static_cast<std::int32_t>(v);
            const auto i64 = static_cast<std::int64_t>(v);
            const std::size_t size = dtype_size(fields[f].dtype);
            const void* source = fields[f].dtype == DType::float64 ? static_cast<const void*>(&v)
                                 : fields[f].dtype == DType::float32 ? static_cast<const void*>(&v32)
                                 : fields[f].dtype == DType::int32 ? static_cast<const void*>(&i32)
                                                                    : static_cast<const void*>(&i64);
            std::memcpy(bytes.data() + k * size, source, size);
        }
        values.push_back(std::move(bytes));
    }
    return values;
}

TaskRecord test_record(std::uint64_t id, int rank)
{
    TaskRecord record;
    record.task_id = id;
    record.status = fails(id) ? TaskStatus::failed : TaskStatus::ok;
    record.attempts = fails(id) ? 3 : 1;
    record.rank = rank;
    record.host = "node" + std::to_string(rank % 2);
    record.device = "cpu";
    record.start = 1.7e9 + double(id);
    record.end = record.start + 0.5;
    record.exit_code = fails(id) ? 40 + static_cast<int>(id % 5) : 0;
    return record;
}

TaskRecord with_reasons(TaskRecord record)
{
    const bool failed = record.status != TaskStatus::ok;
    if (failed) record.message = "exit code " + std::to_string(record.exit_code);
    std::vector<AttemptRecord> attempts;
    for (std::int32_t k = 1; k <= (failed ? record.attempts : 1); ++k) {
        const double start = record.start + 0.1 * (k - 1);
        attempts.push_back(AttemptRecord{k, record.exit_code, start, start + 0.05, record.rank,
                                         failed ? "exit code " + std::to_string(record.exit_code) : ""});
    }
    record.attempt_log = encode_attempts(attempts);
    return record;
}

std::vector<ParamColumn> test_params(std::uint64_t task_count)
{
    std::vector<double> alpha;
    std::vector<std::int64_t> n;
    std::vector<std::string> label;
    for (std::uint64_t id = 0; id < task_count; ++id) {
        alpha.push_back(0.5 * double(id));
        n.push_back(static_cast<std::int64_t>(id % 3));
        label.push_back("p" + std::to_string(id));
    }
    return {ParamColumn{"alpha", alpha}, ParamColumn{"n", n}, ParamColumn{"label", label}};
}

TaskRanges test_ranges(std::uint64_t task_count)
{
    TaskRanges ranges;
    for (std::uint64_t id = 0; id < task_count; ++id) {
        ranges.start.push_back(static_cast<std::int64_t>(100 * id));
        ranges.end.push_back(static_cast<std::int64_t>(100 * id + 100));
    }
    return ranges;
}

}  // namespace shardrun::io::testing

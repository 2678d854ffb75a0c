// Commit + master-file cost and resume scan for 1e5 scalar tasks written by 4 ranks with
// interleaved ids (chunks of 16, as a dynamic schedule), each committing every 1000 tasks;
// then the VDS alternative to consolidation, built and read at the same scale.
// The four sinks run one after another in this process, so their fsyncs do not overlap as
// those of four real ranks would: the wall figures are an upper bound.
//   io_master_bench [TASKS=100000] [DIR=/tmp] [TASKS_PER_COMMIT=1000]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

#include "bench_common.hpp"
#include "io/layout/output_layout.hpp"
#include "vds_master.hpp"

namespace fs = std::filesystem;
using namespace shardrun::io;

namespace {

constexpr int ranks = 4;
constexpr std::uint64_t chunk = 16;
std::uint64_t per_commit = 1000;

const std::vector<FieldSpec> fields{FieldSpec{"energy", DType::float64, {}, "J"},
                                    FieldSpec{"iterations", DType::int64, {}, ""}};

/** Records and commits every task through 4 shard sinks; `contiguous` deals blocks instead of chunks. */
double write_tasks(const OutputOptions& options, const JobMetadata& m, bool contiguous)
{
    const double start = bench::seconds();
    std::vector<std::unique_ptr<ResultSink>> sinks;
    for (int r = 0; r < ranks; ++r) sinks.push_back(open_rank_sink(options, m, fields, r, ranks));
    std::vector<std::uint64_t> recorded(ranks, 0);
    const auto T = m.task_count;
    for (std::uint64_t id = 0; id < T; ++id) {
        const int r = contiguous ? static_cast<int>(id * ranks / T) : static_cast<int>((id / chunk) % ranks);
        const double energy = 0.5 * double(id);
        const std::int64_t iterations = static_cast<std::int64_t>(id % 1000);
        TaskValues values(2, std::vector<std::byte>(8));
        std::memcpy(values[0].data(), &energy, 8);
        std::memcpy(values[1].data(), &iterations, 8);
        sinks[r]->record(TaskRecord{id, TaskStatus::ok, 1, r, "node0", "cpu", 1.7e9, 1.7e9 + 1, 0}, values);
        if (++recorded[r] % per_commit == 0) sinks[r]->commit();
    }
    for (auto& sink : sinks) sink->commit();
    return bench::seconds() - start;
}

std::uint64_t shard_bytes(const std::string& path)
{
    std::uint64_t bytes = 0;
    for (const auto& entry : fs::recursive_directory_iterator(layout::shards_dir(path))) {
        if (entry.is_regular_file()) bytes += entry.file_size();
    }
    return bytes;
}

double read_all_shards(const std::string& path)
{
    double total = 0;
    for (const auto& entry : fs::recursive_directory_iterator(layout::shards_dir(path))) {
        if (entry.is_regular_file() && entry.path().extension() == ".h5") total += bench::raw_posix_read(entry.path());
    }
    return total;
}

void vds_versus_consolidated(const std::string& path, const JobMetadata& m, const char* schedule)
{
    TaskTable table(m.task_count);
    table.gather_element(path, 0, 0, m.task_count);
    const auto vds = path + ".vds.h5";
    const double start = bench::seconds();
    const auto mappings = bench::write_vds_master(vds, table, "energy");
    const double build = bench::seconds() - start;
    const double vds_read = bench::read_field_seconds(vds, "energy");
    const double consolidated_read = bench::read_field_seconds(path, "energy");
    std::printf("  %-11s VDS /results/energy: %zu mappings, build %.3f s, open+read %.3f s = %.1f x the consolidated read (%.4f s)\n",
                schedule, mappings, build, vds_read, vds_read / consolidated_read, consolidated_read);
    fs::remove(vds);
}

void run_case(const std::string& dir, std::uint64_t T, bool contiguous)
{
    OutputOptions options{dir + (contiguous ? "/static.h5" : "/dynamic.h5")};
    options.keep_shards = true;  // the scan, the raw read and the VDS below read the segments again
    auto m = bench::bench_metadata(T);
    m.world_size = ranks;
    const std::vector<ParamColumn> params{ParamColumn{"x", std::vector<double>(T, 1.0)}};
    auto lock = prepare_output(options, m);
    const double cpu_start = bench::cpu_seconds();
    const double commit = write_tasks(options, m, contiguous);
    double start = bench::seconds();
    const auto summary = finalize_output(options, m, fields, params, {}, ranks);
    const double master = bench::seconds() - start;
    const double cpu = bench::cpu_seconds() - cpu_start;
    start = bench::seconds();
    const auto done = committed_tasks(options, m);
    const double scan = bench::seconds() - start;
    if (!summary.complete || done.size() != T) std::printf("  ERROR: incomplete output\n");

    const auto bytes = shard_bytes(options.path) + fs::file_size(options.path);
    std::vector<char> data(std::size_t{64} << 20, 1);
    const double raw = bench::raw_posix_write(dir + "/raw.bin", bytes, data.size(), data.data());
    fs::remove(dir + "/raw.bin");
    const double raw_read = read_all_shards(options.path);
    const char* name = contiguous ? "static" : "dynamic";
    std::printf("  %-11s commit %.3f s + master %.3f s = %.2f us/task wall, %.2f us/task CPU (target <= 10); %.1f x a raw POSIX write of the same %.1f MiB\n",
                name, commit, master, (commit + master) / double(T) * 1e6, cpu / double(T) * 1e6, (commit + master) / raw,
                double(bytes) / double(1 << 20));
    std::printf("  %-11s resume scan of %zu committed tasks: %.3f s (target <= 1 s); %.1f x reading the shard files raw\n",
                name, done.size(), scan, scan / raw_read);
    vds_versus_consolidated(options.path, m, name);
}

}  // namespace

int main(int argc, char** argv)
{
    const std::uint64_t T = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 100000;
    const auto dir = bench::bench_dir(argc > 2 ? argv[2] : nullptr);
    if (argc > 3) per_commit = std::strtoull(argv[3], nullptr, 10);
    std::printf("io master bench: %llu scalar tasks (float64 + int64), %d ranks, commit every %llu tasks per rank\n",
                static_cast<unsigned long long>(T), ranks, static_cast<unsigned long long>(per_commit));
    run_case(dir, T, false);
    run_case(dir, T, true);
    fs::remove_all(dir);
    return 0;
}

// Write bandwidth of both layouts against a raw POSIX write of the same bytes to the same
// folder, each committing (fsync) every 64 MiB.
//   io_write_bandwidth_bench [TASKS=10000] [KIB_PER_TASK=256] [DIR=/tmp] [ROUNDS=3]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "bench_common.hpp"

namespace fs = std::filesystem;
using namespace shardrun::io;

namespace {

/** Records `tasks` tasks of one `bytes`-long float64 field through a sink, committing every 64 MiB; returns seconds. */
double write_layout(const std::string& path, Layout layout, std::uint64_t tasks, std::size_t bytes,
                    const std::vector<std::byte>& payload)
{
    const OutputOptions options{path, layout};
    const auto m = bench::bench_metadata(tasks);
    const std::vector<FieldSpec> fields{FieldSpec{"field", DType::float64, {bytes / 8}, ""}};
    const std::uint64_t per_commit = std::max<std::uint64_t>(1, (std::size_t{64} << 20) / bytes);
    const double start = bench::seconds();
    auto lock = prepare_output(options, m);
    auto sink = open_rank_sink(options, m, fields, 0, 1);
    TaskValues values{payload};
    for (std::uint64_t id = 0; id < tasks; ++id) {
        std::memcpy(values[0].data(), &id, sizeof id);  // every row differs
        sink->record(TaskRecord{id, TaskStatus::ok, 1, 0, "localhost", "cpu", 0.0, 1.0, 0}, values);
        if ((id + 1) % per_commit == 0) sink->commit();
    }
    sink->commit();
    sink.reset();
    return bench::seconds() - start;
}

/** finalize_output of a shards output: consolidating every result byte into the master. */
double finalize_shards(const std::string& path, std::uint64_t tasks, std::size_t bytes)
{
    const OutputOptions options{path, Layout::shards};
    const auto m = bench::bench_metadata(tasks);
    const std::vector<FieldSpec> fields{FieldSpec{"field", DType::float64, {bytes / 8}, ""}};
    const std::vector<ParamColumn> params{ParamColumn{"x", std::vector<double>(tasks, 0.0)}};
    const double start = bench::seconds();
    finalize_output(options, m, fields, params, {}, 1);
    return bench::seconds() - start;
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    const std::uint64_t tasks = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10000;
    const std::size_t bytes = (argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 256) * 1024;
    const auto dir = bench::bench_dir(argc > 3 ? argv[3] : nullptr);
    const int rounds = argc > 4 ? std::atoi(argv[4]) : 3;
    std::vector<std::byte> payload(bytes);
    for (std::size_t i = 0; i < bytes; ++i) payload[i] = static_cast<std::byte>(i * 131 % 251);
    const double total = double(tasks) * double(bytes);
    const std::size_t piece = std::max<std::size_t>(1, (std::size_t{64} << 20) / bytes) * bytes;
    std::vector<std::byte> all(piece);
    for (std::size_t i = 0; i < piece; i += bytes) std::memcpy(all.data() + i, payload.data(), bytes);

    // The disk is shared and noisy: interleave the three writers and compare within a round.
    std::vector<double> raw, shards, single, shards_ratio, single_ratio, cpu(3, 0.0);
    double master = 0;
    for (int round = 0; round < rounds; ++round) {
        double cpu_start = bench::cpu_seconds();
        raw.push_back(bench::raw_posix_write(dir + "/raw.bin", static_cast<std::size_t>(total), piece, all.data()));
        fs::remove(dir + "/raw.bin");
        cpu[0] += bench::cpu_seconds() - cpu_start;
        cpu_start = bench::cpu_seconds();
        shards.push_back(write_layout(dir + "/shards.h5", Layout::shards, tasks, bytes, payload));
        if (round == 0) master = finalize_shards(dir + "/shards.h5", tasks, bytes);
        fs::remove_all(dir + "/shards.h5.shards");
        fs::remove(dir + "/shards.h5");
        cpu[1] += bench::cpu_seconds() - cpu_start;
        cpu_start = bench::cpu_seconds();
        single.push_back(write_layout(dir + "/single.h5", Layout::single, tasks, bytes, payload));
        fs::remove_all(dir + "/single.h5.shards");
        cpu[2] += bench::cpu_seconds() - cpu_start;
        shards_ratio.push_back(raw.back() / shards.back());
        single_ratio.push_back(raw.back() / single.back());
    }
    fs::remove_all(dir);

    const auto mib_s = [&](double s) { return total / s / double(1 << 20); };
    std::printf("io write bandwidth: %llu tasks x %zu KiB = %.2f GiB, fsync every %.0f MiB, %d rounds, in %s\n",
                static_cast<unsigned long long>(tasks), bytes / 1024, total / double(1 << 30),
                double(piece) / double(1 << 20), rounds, dir.c_str());
    const auto spread = [](std::vector<double> r) {
        std::sort(r.begin(), r.end());
        static char text[64];
        std::snprintf(text, sizeof text, "rounds %.2f..%.2f", r.front(), r.back());
        return text;
    };
    std::printf("  raw POSIX write (anchor)   %8.1f MiB/s (median)   1.00 x raw   CPU %.2f s/GiB\n", mib_s(median(raw)),
                cpu[0] / rounds / (total / double(1 << 30)));
    std::printf("  layout shards              %8.1f MiB/s (median)   %.2f x raw (%s; target >= 0.80)   CPU %.2f s/GiB\n",
                mib_s(median(shards)), median(shards_ratio), spread(shards_ratio), cpu[1] / rounds / (total / double(1 << 30)));
    std::printf("  shards master (consolidate) %7.1f MiB/s (round 1)   %.2f x raw: the end-of-job copy into <path>\n",
                mib_s(master), median(raw) / master);
    std::printf("  layout single (1 rank)     %8.1f MiB/s (median)   %.2f x raw (%s)   CPU %.2f s/GiB\n",
                mib_s(median(single)), median(single_ratio), spread(single_ratio), cpu[2] / rounds / (total / double(1 << 30)));
    MPI_Finalize();
    return 0;
}

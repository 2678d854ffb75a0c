// Write bandwidth of both layouts against a raw POSIX write of the same bytes to the same
// folder, each committing (fsync) every 64 MiB; and the master's consolidation of the shards
// against a raw POSIX copy of the segment files (read + write, fsync every 64 MiB), in every round.
//   io_write_bandwidth_bench [TASKS=10000] [KIB_PER_TASK=256] [DIR=/tmp] [ROUNDS=3]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "collectives/mpi/mpi_communicator.hpp"
#include "io/layout/output_layout.hpp"

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
    const auto world = shardrun::collectives::mpi::world();  // layout single writes through MPI-IO over it
    auto sink = open_rank_sink(options, m, fields, *world);
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

/** What one run compares: the same bytes, written by each writer in 64 MiB commits. */
struct Setup {
    std::uint64_t tasks;
    std::size_t bytes;
    std::string dir;
    std::vector<std::byte> payload;  ///< one task's row
    std::vector<std::byte> piece;    ///< 64 MiB of rows, the raw writer's unit
    double total() const { return double(tasks) * double(bytes); }
};

struct Figures {
    std::vector<double> raw, shards, single, copy, master, shards_ratio, single_ratio, master_ratio, master_write_ratio;
    std::vector<double> cpu = std::vector<double>(5, 0.0);  ///< raw, shards, single, copy, master: CPU seconds
};

/** Times `write` (seconds) and adds the CPU seconds it used to `cpu`. */
template <typename Write>
double timed(double& cpu, Write&& write)
{
    const double cpu_start = bench::cpu_seconds();
    const double wall = write();
    cpu += bench::cpu_seconds() - cpu_start;
    return wall;
}

/** The committed segments of a shards output, in name order. */
std::vector<std::string> segment_files(const std::string& path)
{
    std::vector<std::string> files;
    for (const auto& entry : fs::recursive_directory_iterator(layout::shards_dir(path))) {
        if (entry.path().extension() == ".h5") files.push_back(entry.path().string());
    }
    std::sort(files.begin(), files.end());
    return files;
}

/**
 * The anchor, the shards output's segment files copied raw, then the output consolidated into
 * its master (which removes the segments: results are stored once). Both read the segments from
 * the page cache that the shards writer left (a fresh write, 23 GiB of memory here).
 */
void consolidate_and_copy(const Setup& setup, const std::string& path, double (&cpu)[2], double& copy, double& master)
{
    const auto copy_file = setup.dir + "/copy.bin";
    copy = timed(cpu[0], [&] { return bench::raw_posix_copy(segment_files(path), copy_file, setup.piece.size()); });
    fs::remove(copy_file);
    master = timed(cpu[1], [&] { return finalize_shards(path, setup.tasks, setup.bytes); });
}

/**
 * The disk is shared and noisy: interleave the three writers, rotating their order each
 * round (whoever follows a big write pays for its writeback), and compare within a round.
 */
Figures measure(const Setup& setup, int rounds)
{
    Figures f;
    const auto& dir = setup.dir;
    std::vector<double> wall(3);
    double copy = 0, master = 0;
    for (int round = 0; round < rounds; ++round) {
        for (int k = 0; k < 3; ++k) {
            const int writer = (round + k) % 3;
            if (writer == 0) {
                wall[0] = timed(f.cpu[0], [&] {
                    return bench::raw_posix_write(dir + "/raw.bin", static_cast<std::size_t>(setup.total()),
                                                  setup.piece.size(), setup.piece.data());
                });
                fs::remove(dir + "/raw.bin");
                continue;
            }
            const auto layout = writer == 1 ? Layout::shards : Layout::single;
            const auto path = dir + (writer == 1 ? "/shards.h5" : "/single.h5");
            wall[writer] = timed(f.cpu[writer], [&] { return write_layout(path, layout, setup.tasks, setup.bytes, setup.payload); });
            if (writer == 1) {
                double cpu[2] = {0, 0};
                consolidate_and_copy(setup, path, cpu, copy, master);
                f.cpu[3] += cpu[0];
                f.cpu[4] += cpu[1];
            }
            fs::remove_all(layout::shards_dir(path));
            fs::remove(path);
        }
        f.raw.push_back(wall[0]);
        f.shards.push_back(wall[1]);
        f.single.push_back(wall[2]);
        f.copy.push_back(copy);
        f.master.push_back(master);
        f.shards_ratio.push_back(wall[0] / wall[1]);
        f.single_ratio.push_back(wall[0] / wall[2]);
        f.master_ratio.push_back(copy / master);
        f.master_write_ratio.push_back(wall[0] / master);
    }
    return f;
}

std::string spread(std::vector<double> ratios)
{
    std::sort(ratios.begin(), ratios.end());
    char text[64];
    std::snprintf(text, sizeof text, "rounds %.2f..%.2f", ratios.front(), ratios.back());
    return text;
}

void print(const Setup& setup, const Figures& f, int rounds)
{
    const double gib = setup.total() / double(1 << 30);
    const auto mib_s = [&](double s) { return setup.total() / s / double(1 << 20); };
    const auto cpu = [&](int writer) { return f.cpu[static_cast<std::size_t>(writer)] / rounds / gib; };
    std::printf("io write bandwidth: %llu tasks x %zu KiB = %.2f GiB, fsync every %.0f MiB, %d rounds, in %s\n",
                static_cast<unsigned long long>(setup.tasks), setup.bytes / 1024, gib,
                double(setup.piece.size()) / double(1 << 20), rounds, setup.dir.c_str());
    std::printf("  raw POSIX write (anchor)    %8.1f MiB/s (median)   1.00 x raw   CPU %.2f s/GiB\n",
                mib_s(median(f.raw)), cpu(0));
    std::printf("  raw POSIX copy (anchor)     %8.1f MiB/s (median)   the segment files read and written   CPU %.2f s/GiB\n",
                mib_s(median(f.copy)), cpu(3));
    std::printf("  layout shards               %8.1f MiB/s (median)   %.2f x raw (%s; target >= 0.90)   CPU %.2f s/GiB\n",
                mib_s(median(f.shards)), median(f.shards_ratio), spread(f.shards_ratio).c_str(), cpu(1));
    std::printf("  shards master (consolidate) %8.1f MiB/s (median)   %.2f x raw copy (%s; target >= 0.80)   "
                "%.2f x raw write   CPU %.2f s/GiB\n",
                mib_s(median(f.master)), median(f.master_ratio), spread(f.master_ratio).c_str(),
                median(f.master_write_ratio), cpu(4));
    std::printf("  layout single (1 rank)      %8.1f MiB/s (median)   %.2f x raw (%s)   CPU %.2f s/GiB\n",
                mib_s(median(f.single)), median(f.single_ratio), spread(f.single_ratio).c_str(), cpu(2));
}

}  // namespace

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    Setup setup;
    setup.tasks = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10000;
    setup.bytes = (argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 256) * 1024;
    setup.dir = bench::bench_dir(argc > 3 ? argv[3] : nullptr);
    const int rounds = argc > 4 ? std::atoi(argv[4]) : 3;
    if (setup.tasks == 0 || setup.bytes == 0 || rounds < 1) {
        std::fprintf(stderr, "usage: io_write_bandwidth_bench [TASKS >= 1] [KIB >= 1] [DIR] [ROUNDS >= 1]\n");
        MPI_Finalize();
        return 2;
    }
    setup.payload.resize(setup.bytes);
    for (std::size_t i = 0; i < setup.bytes; ++i) setup.payload[i] = static_cast<std::byte>(i * 131 % 251);
    setup.piece.resize(std::max<std::size_t>(1, (std::size_t{64} << 20) / setup.bytes) * setup.bytes);
    for (std::size_t i = 0; i < setup.piece.size(); i += setup.bytes) {
        std::memcpy(setup.piece.data() + i, setup.payload.data(), setup.bytes);
    }

    const auto figures = measure(setup, rounds);
    fs::remove_all(setup.dir);
    print(setup, figures, rounds);
    MPI_Finalize();
    return 0;
}

#include "runner/cli/command_bench.hpp"

#include <cctype>
#include <fstream>
#include <iostream>
#include <limits>

#include "collectives/mpi/environment.hpp"
#include "collectives/mpi/mpi_communicator.hpp"
#include "io/errors.hpp"
#include "runner/env/launch_check.hpp"
#include "runner/errors.hpp"
#include "runner/run/agreement.hpp"

namespace po = boost::program_options;

namespace shardrun::cli {
namespace {

// One allreduce call carries at most INT_MAX elements (MPI's int counts).
constexpr std::size_t max_bench_bytes = static_cast<std::size_t>(std::numeric_limits<int>::max()) * sizeof(float);

std::string option_error(const std::string& option, const std::string& value, const std::string& what)
{
    return "bench allreduce " + option + " " + value + ": " + what;
}

bench::Backend parse_backend(const std::string& text)
{
    if (text == "mpi") return bench::Backend::mpi;
    if (text == "nccl") return bench::Backend::nccl;
    SHARDRUN_THROW(UsageError, option_error("--backend", "'" + text + "'", "unknown backend; use mpi or nccl"));
}

void check_sizes(const bench::AllreduceOptions& options, const std::string& min_text, const std::string& max_text)
{
    if (options.min_bytes < sizeof(float)) {
        SHARDRUN_THROW(UsageError, option_error("--min", min_text, "must be at least 4 (one float)"));
    }
    if (options.max_bytes > max_bench_bytes) {
        SHARDRUN_THROW(UsageError, option_error("--max", max_text,
                                                "must be at most " + std::to_string(max_bench_bytes) + " (2^31-1 floats)"));
    }
    if (options.min_bytes > options.max_bytes) {
        SHARDRUN_THROW(UsageError,
            option_error("--min", min_text, "is above --max " + max_text + "; --min must be at most --max"));
    }
    if (options.factor < 2 && options.min_bytes != options.max_bytes) {
        SHARDRUN_THROW(UsageError, option_error("--factor", std::to_string(options.factor),
                                                "must be at least 2 when --min and --max differ"));
    }
}

std::ofstream open_json(const std::string& path)
{
    std::ofstream out(path);
    if (!out) SHARDRUN_THROW(UsageError, "bench allreduce --json " + path + ": cannot write this file");
    return out;
}

}  // namespace

std::size_t parse_byte_size(const std::string& text, const std::string& option)
{
    const auto bad = [&] {
        return SHARDRUN_ERROR(UsageError, option_error(option, "'" + text + "'",
                                                       "not a size; use a byte count with an optional K, M or G "
                                                       "suffix (powers of 1024), e.g. 8, 64K, 256M"));
    };
    std::size_t digits = 0;
    while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
    if (digits == 0 || digits > 18 || text.size() > digits + 1) throw bad();
    std::size_t shift = 0;
    if (text.size() == digits + 1) {
        const auto suffix = std::toupper(static_cast<unsigned char>(text.back()));
        if (suffix == 'K') shift = 10;
        else if (suffix == 'M') shift = 20;
        else if (suffix == 'G') shift = 30;
        else throw bad();
    }
    const auto value = std::stoull(text.substr(0, digits));
    if (value > (std::numeric_limits<std::size_t>::max() >> shift)) throw bad();
    return static_cast<std::size_t>(value) << shift;
}

void BenchCommand::add_options(po::options_description& options, po::positional_options_description& positional)
{
    options.add_options()
        ("collective", po::value<std::string>(&collective_), "what to measure: allreduce")
        ("backend", po::value<std::string>(&backend_)->default_value("mpi"), "mpi (host memory) or nccl (GPUs)")
        ("min", po::value<std::string>(&min_text_)->default_value("8"), "smallest size in bytes (K, M, G: x1024)")
        ("max", po::value<std::string>(&max_text_)->default_value("256M"), "largest size in bytes (K, M, G: x1024)")
        ("factor", po::value<int>(&options_.factor)->default_value(2), "each size is the previous one times this")
        ("iters", po::value<int>(&options_.iters)->default_value(20), "timed allreduces per size")
        ("warmup", po::value<int>(&options_.warmup)->default_value(5), "untimed allreduces per size before those")
        ("group", po::value<int>(&options_.group)->default_value(0),
         "ranks per group: groups of G consecutive ranks run their own allreduces at once (0: all ranks)")
        ("json", po::value<std::string>(&json_path_), "also write the options and rows to this JSON file");
    positional.add("collective", 1);
}

CommandDoc BenchCommand::doc() const
{
    return {
        .description =
            "Measures allreduce on the ranks it was started on, as nccl-tests' `all_reduce_perf` does: for each "
            "size from `--min` to `--max` it times `--iters` allreduces after `--warmup` untimed ones and prints the "
            "time, the algorithm and bus bandwidth, and `#wrong`, the elements whose result was not the expected "
            "sum. `--backend mpi` reduces host memory through MPI, `--backend nccl` GPU memory through NCCL; "
            "`--group G` runs groups of G consecutive ranks at once, as the ranks of a multi-GPU task are grouped. "
            "Start it under `mpirun` or `srun`; `--json` also writes the rows to a file.\n\n"
            "Reach for it to check the network or the GPU interconnect of a cluster before a multi-GPU or "
            "multi-node job, or to compare it with nccl-tests' numbers for the same machines.",
        .example = "mpirun -np 4 shardrun bench allreduce --max 64M",
        .exit_codes = {
            {exit_ok, "every element of every allreduce was right"},
            {exit_task_failed, "an element was wrong (#wrong above 0), or the --json file could not be written to "
                               "the end"},
            {exit_bad_input, "usage error: no or an unknown benchmark, sizes or counts out of range, --backend nccl "
                             "without CUDA, NCCL or a visible GPU, a --group that does not divide the ranks, a --json "
                             "file it cannot open (one line)"},
        },
    };
}

void BenchCommand::check(const po::variables_map&)
{
    if (collective_.empty()) SHARDRUN_THROW(UsageError, "bench: name what to measure; use: shardrun bench allreduce [options]");
    if (collective_ != "allreduce") SHARDRUN_THROW(UsageError, "bench '" + collective_ + "': unknown benchmark; use allreduce");
    options_.backend = parse_backend(backend_);
    options_.min_bytes = parse_byte_size(min_text_, "--min");
    options_.max_bytes = parse_byte_size(max_text_, "--max");
    check_sizes(options_, min_text_, max_text_);
    if (options_.iters < 1) {
        SHARDRUN_THROW(UsageError, option_error("--iters", std::to_string(options_.iters), "must be at least 1"));
    }
    if (options_.warmup < 0) {
        SHARDRUN_THROW(UsageError, option_error("--warmup", std::to_string(options_.warmup), "must be 0 or more"));
    }
    if (options_.group < 0) {
        SHARDRUN_THROW(UsageError, option_error("--group", std::to_string(options_.group), "must be 1 or more (0: all ranks)"));
    }
}

int BenchCommand::run()
{
    env::check_launch();  // a launch MPI_Init cannot survive gets our one line, not Open MPI's 30
    collectives::MpiEnvironment mpi(nullptr, nullptr);
    const auto world = collectives::mpi::world();
    const bool leader = world->rank() == 0;
    std::unique_ptr<bench::AllreduceBackend> backend;
    std::ofstream json;
    // Agreed, so a missing backend, a --group that does not divide or an unwritable --json
    // ends every rank with exit 2 and one line, not an MPI_Abort.
    run::run_agreed(*world, [&] {
        backend = bench::make_backend(options_.backend, *world, options_.group == 0 ? world->size() : options_.group);
        if (leader && !json_path_.empty()) json = open_json(json_path_);
    });
    if (leader) std::cout << bench::allreduce_table_header(options_, world->size()) << std::flush;
    const auto rows = bench::run_allreduce(*backend, *world, options_, [&](const bench::AllreduceRow& row) {
        if (leader) std::cout << bench::allreduce_table_row(row) << std::flush;
    });
    if (leader) {
        std::cout << bench::allreduce_table_footer(rows) << std::flush;
        if (json.is_open()) json << bench::allreduce_json(options_, world->size(), rows);
        if (json.is_open() && !json.flush()) {
            SHARDRUN_THROW(io::WriteError, "bench allreduce --json " + json_path_ + ": write failed");
        }
    }
    // A wrong element is a failed check, as a failed task is: exit 1.
    for (const auto& row : rows) {
        if (row.wrong != 0) return exit_task_failed;
    }
    return exit_ok;
}

}  // namespace shardrun::cli

#include "runner/submit/submit_options.hpp"

#include <fmt/format.h>

#include <regex>

#include "runner/errors.hpp"

namespace shardrun::submit {
namespace {

void check_at_least(long value, long minimum, const char* option)
{
    if (value < minimum) SHARDRUN_THROW(UsageError, fmt::format("submit: {} {} must be at least {}", option, value, minimum));
}

}  // namespace

std::string_view target_name(Target target) noexcept
{
    switch (target) {
    case Target::slurm: return "slurm";
    case Target::aws_batch: return "aws-batch";
    case Target::gcp_batch: return "gcp-batch";
    }
    return "slurm";
}

Target parse_target(const std::string& text)
{
    for (const auto target : {Target::slurm, Target::aws_batch, Target::gcp_batch}) {
        if (text == target_name(target)) return target;
    }
    SHARDRUN_THROW(UsageError, fmt::format("submit: --to '{}' is not a target; use slurm, aws-batch or gcp-batch", text));
}

long parse_time_limit(const std::string& text)
{
    // Slurm's formats (sbatch --time): M, M:S, H:M:S, D-H, D-H:M, D-H:M:S.
    static const std::regex pattern(R"(^(?:(\d+)-(\d+)(?::(\d+)(?::(\d+))?)?|(\d+)(?::(\d+)(?::(\d+))?)?)$)");
    std::smatch m;
    if (!std::regex_match(text, m, pattern)) {
        SHARDRUN_THROW(UsageError, fmt::format("submit: --time '{}' is not a time limit; use minutes, MM:SS, HH:MM:SS, "
                                               "D-HH, D-HH:MM or D-HH:MM:SS (as sbatch --time)", text));
    }
    const auto part = [&](int i) { return m[i].matched ? std::stol(m[i].str()) : 0L; };
    long seconds = 0;
    if (m[1].matched) {
        seconds = part(1) * 86400 + part(2) * 3600 + part(3) * 60 + part(4);
    } else if (m[7].matched) {
        seconds = part(5) * 3600 + part(6) * 60 + part(7);
    } else {
        seconds = part(5) * 60 + part(6);
    }
    if (seconds <= 0) SHARDRUN_THROW(UsageError, fmt::format("submit: --time '{}' must be longer than zero", text));
    return seconds;
}

void validate(SubmitOptions& options)
{
    check_at_least(options.array, 1, "--array");
    check_at_least(options.nodes, 1, "--nodes");
    check_at_least(options.ranks_per_node, 1, "--ranks-per-node");
    check_at_least(options.gpus_per_rank, 0, "--gpus-per-rank");
    if (options.array > 10000 && options.target == Target::aws_batch) {
        SHARDRUN_THROW(UsageError, fmt::format("submit: --array {} is more than AWS Batch allows (10000)", options.array));
    }
    if (options.target == Target::gcp_batch && options.nodes > 1) {
        SHARDRUN_THROW(UsageError, "submit: --to gcp-batch runs each array element on one VM; --nodes must be 1 (use more "
                                   "--ranks-per-node on a larger machine, or --to aws-batch / slurm for several nodes)");
    }
    if (!options.partition.empty() && options.target != Target::slurm) {
        SHARDRUN_THROW(UsageError, "submit: --partition is a Slurm option; it has no meaning for --to " +
                                   std::string(target_name(options.target)));
    }
    if (options.image.empty()) SHARDRUN_THROW(UsageError, "submit: --image must not be empty");
    if (options.shardrun.find('\n') != std::string::npos) SHARDRUN_THROW(UsageError, "submit: --shardrun must be one line");
    if (options.gpu_type.empty()) options.gpu_type = std::string(default_gpu_type);
    options.time_seconds = options.time.empty() ? 0 : parse_time_limit(options.time);
    if (options.target == Target::aws_batch && options.time_seconds > 0 && options.time_seconds < 60) {
        SHARDRUN_THROW(UsageError, fmt::format("submit: --time {} is shorter than AWS Batch's minimum timeout (60 s)", options.time));
    }
}

}  // namespace shardrun::submit

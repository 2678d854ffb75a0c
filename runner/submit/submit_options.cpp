#include "runner/submit/submit_options.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <regex>

#include "runner/errors.hpp"
#include "runner/submit/cloud_identity.hpp"
#include "runner/submit/submit_targets.hpp"

namespace shardrun::submit {
namespace {

void check_at_least(long value, long minimum, const char* option)
{
    if (value < minimum) SHARDRUN_THROW(UsageError, fmt::format("submit: {} {} must be at least {}", option, value, minimum));
}

}  // namespace

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
    // 0 would mean "the default" inside (resolve_cloud_sizes), so --vcpus 0 became 1 vCPU unsaid.
    if (options.given.count("vcpus")) check_at_least(options.vcpus, 1, "--vcpus");
    if (!options.shared_fs.empty() && !std::filesystem::path(options.shared_fs).is_absolute()) {
        SHARDRUN_THROW(UsageError, fmt::format("submit: --shared-fs {}: give the absolute path the containers mount "
                                               "(the same on this machine and in them), e.g. --shared-fs /mnt/efs",
                                               options.shared_fs));
    }
    if (options.image.empty()) SHARDRUN_THROW(UsageError, "submit: --image must not be empty");
    if (options.shardrun.find('\n') != std::string::npos) SHARDRUN_THROW(UsageError, "submit: --shardrun must be one line");
    if (!options.workdir.empty() && !std::filesystem::is_directory(options.workdir)) {
        SHARDRUN_THROW(UsageError, fmt::format("submit: --workdir {}: not a folder; name the folder the job runs in "
                                               "(its code and inputs), e.g. --workdir .", options.workdir));
    }
    if (options.gpu_type.empty()) options.gpu_type = std::string(default_gpu_type);
    options.time_seconds = options.time.empty() ? 0 : parse_time_limit(options.time);
    check_cloud_identity(options);
    if (options.target != nullptr) options.target->validate(options);
}

}  // namespace shardrun::submit

#include "runner/submit/slurm_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <regex>
#include <string_view>
#include <utility>

#include "runner/errors.hpp"

namespace shardrun::submit {
namespace {

// sbatch options the scripts write themselves, and the submit option that sets each instead.
constexpr std::array<std::pair<std::string_view, std::string_view>, 16> managed{{
    {"array", "--array"}, {"nodes", "--nodes"}, {"ntasks-per-node", "--ranks-per-node"}, {"ntasks", "--ranks-per-node"},
    {"gpus-per-task", "--gpus-per-rank"}, {"time", "--time"}, {"partition", "--partition"}, {"account", "--account"},
    {"qos", "--qos"}, {"mem", "--mem"}, {"cpus-per-task", "--cpus-per-task"}, {"job-name", "the job's name"},
    {"output", "nothing (the logs go to the submission folder)"}, {"open-mode", "nothing (a requeued element appends)"},
    {"requeue", "nothing (always on)"},
    {"dependency", "nothing (the merge job waits for the array)"},
}};

void check_word(const std::string& value, std::string_view option)
{
    static const std::regex word(R"(^[A-Za-z0-9_.,:+@%=-]+$)");
    if (!value.empty() && !std::regex_match(value, word)) {
        SHARDRUN_THROW(UsageError, fmt::format("submit: {} '{}' is not one word; use the name as sinfo / sacctmgr "
                                               "print it (letters, digits and _.,:+@%=-)", option, value));
    }
}

// "constraint=a100" means "--constraint=a100" (a value that starts with "--" needs --sbatch=--...).
std::string sbatch_option(const std::string& line) { return line.rfind('-', 0) == 0 ? line : "--" + line; }

bool is_signal_line(const std::string& given) { return sbatch_option(given).rfind("--signal", 0) == 0; }

/**
 * The lead of `--sbatch signal=B:USR1@N`, 0 when there is no such line. The batch shell's trap
 * drains on USR1 (slurm_scripts.cpp), so B: and USR1 are the only form it can act on.
 */
long given_usr1_lead(const SubmitOptions& options)
{
    long lead = 0;
    for (const auto& given : options.sbatch_lines) {
        if (!is_signal_line(given)) continue;
        static const std::regex form(R"(^--signal[= ]B:(?:SIG)?USR1@([0-9]{1,6})$)");
        std::smatch m;
        const auto line = sbatch_option(given);
        if (!std::regex_match(line, m, form) || std::stol(m[1].str()) < 1) {
            SHARDRUN_THROW(UsageError, fmt::format("submit: --sbatch '{}': the batch script drains on SIGUSR1, so the "
                                                   "signal must be B:USR1@<seconds before the time limit>, e.g. --sbatch "
                                                   "signal=B:USR1@600",
                                                   given));
        }
        lead = std::stol(m[1].str());
    }
    return lead;
}

void check_sbatch_line(const std::string& given)
{
    if (given.find_first_of("\r\n") != std::string::npos) {
        SHARDRUN_THROW(UsageError, "submit: --sbatch must be one line: one option per --sbatch, e.g. --sbatch constraint=a100");
    }
    // "--constraint=a100" or "--constraint a100": the long option, as on an #SBATCH line.
    static const std::regex option(R"(^--([a-z][a-z0-9-]*)([= ]\S.*)?$)");
    const auto line = sbatch_option(given);
    std::smatch m;
    if (!std::regex_match(line, m, option)) {
        SHARDRUN_THROW(UsageError, fmt::format("submit: --sbatch '{}' is not an sbatch option; give one long option "
                                               "per --sbatch, as on an #SBATCH line, e.g. --sbatch constraint=a100 or "
                                               "--sbatch=--constraint=a100", given));
    }
    // A bare `--constraint` would be written as an #SBATCH line that sbatch rejects at submit
    // time, far from the typo: the common options that take a value are checked here.
    static constexpr std::string_view valued[] = {
        "constraint", "reservation", "nodelist", "exclude", "gres", "licenses", "comment", "mail-user", "mail-type",
        "begin", "deadline", "mem-per-cpu", "mem-per-gpu", "cpus-per-gpu", "gpus", "gpus-per-node", "tmp",
        "wckey", "chdir", "clusters", "cluster-constraint", "distribution", "nice", "priority", "switches"};
    if (!m[2].matched && std::find(std::begin(valued), std::end(valued), m[1].str()) != std::end(valued)) {
        SHARDRUN_THROW(UsageError, fmt::format("submit: --sbatch '{}' needs a value: --sbatch {}=<value>", given,
                                               m[1].str()));
    }
    for (const auto& [name, instead] : managed) {
        if (m[1].str() == name) {
            SHARDRUN_THROW(UsageError, fmt::format("submit: --sbatch '{}': shardrun writes --{} itself; use {}", given,
                                                   std::string(name), std::string(instead)));
        }
    }
}

}  // namespace

void validate_slurm_options(const SubmitOptions& options)
{
    check_word(options.account, "--account");
    check_word(options.qos, "--qos");
    check_word(options.partition, "--partition");
    check_word(options.merge_partition, "--merge-partition");
    // sbatch --mem: a whole number with an optional K, M, G or T (MB when none); 0 means the whole node.
    static const std::regex mem(R"(^\d+[KMGT]?$)");
    if (!options.mem.empty() && !std::regex_match(options.mem, mem)) {
        SHARDRUN_THROW(UsageError, fmt::format("submit: --mem '{}' is not an sbatch memory size; use a whole number "
                                               "with K, M, G or T (e.g. 64G; 0: all of the node's memory)", options.mem));
    }
    if (options.cpus_per_task < 0) {
        SHARDRUN_THROW(UsageError, fmt::format("submit: --cpus-per-task {} must be at least 1", options.cpus_per_task));
    }
    for (const auto& line : options.sbatch_lines) {
        if (!is_signal_line(line)) check_sbatch_line(line);
    }
    given_usr1_lead(options);
    if (options.max_requeues < 0) {
        SHARDRUN_THROW(UsageError, fmt::format("submit: --max-requeues {} must be 0 (never requeue) or more",
                                               options.max_requeues));
    }
    if (!options.merge_time.empty()) {
        try {
            parse_time_limit(options.merge_time);
        } catch (const UsageError&) {
            SHARDRUN_THROW(UsageError, fmt::format("submit: --merge-time '{}' is not a time limit; use minutes, "
                                                   "HH:MM:SS or D-HH (as sbatch --time)", options.merge_time));
        }
    }
}

std::string slurm_run_option_lines(const SubmitOptions& options)
{
    std::string text;
    if (!options.account.empty()) text += fmt::format("#SBATCH --account={}\n", options.account);
    if (!options.qos.empty()) text += fmt::format("#SBATCH --qos={}\n", options.qos);
    if (!options.mem.empty()) text += fmt::format("#SBATCH --mem={}\n", options.mem);
    if (options.cpus_per_task > 0) text += fmt::format("#SBATCH --cpus-per-task={}\n", options.cpus_per_task);
    for (const auto& line : options.sbatch_lines) {
        if (!is_signal_line(line)) text += fmt::format("#SBATCH {}\n", sbatch_option(line));
    }
    return text;
}

namespace {

long default_usr1_lead(double drain_timeout_seconds)
{
    return static_cast<long>(std::ceil(drain_timeout_seconds)) + usr1_margin_seconds;
}

}  // namespace

long usr1_lead_seconds(const SubmitOptions& options, double drain_timeout_seconds)
{
    const auto given = given_usr1_lead(options);
    return given > 0 ? given : default_usr1_lead(drain_timeout_seconds);
}

void check_slurm_job(const SubmitOptions& options, const job::JobSpec& spec)
{
    const auto lead = usr1_lead_seconds(options, spec.drain_timeout_seconds);
    if (given_usr1_lead(options) > 0 && lead <= spec.drain_timeout_seconds) {
        SHARDRUN_THROW(UsageError, fmt::format("submit: --sbatch signal=B:USR1@{} gives the drain {} s, but the job's "
                                               "drain_timeout is {} s: running tasks would be killed by the time limit "
                                               "before the drain ends; give @{} or more, or a shorter drain_timeout",
                                               lead, lead, spec.drain_timeout_seconds,
                                               default_usr1_lead(spec.drain_timeout_seconds)));
    }
    if (options.time_seconds > 0 && options.time_seconds <= lead) {
        SHARDRUN_THROW(UsageError, fmt::format("submit: --time {} ({} s) is not longer than the drain's lead, {} s "
                                               "before the time limit (drain_timeout {} s + {} s): each element would be "
                                               "told to drain as it starts; give a longer --time or a shorter drain_timeout",
                                               options.time, options.time_seconds, lead, spec.drain_timeout_seconds,
                                               lead - default_usr1_lead(spec.drain_timeout_seconds) + usr1_margin_seconds));
    }
}

std::string slurm_merge_option_lines(const SubmitOptions& options)
{
    std::string text = fmt::format("#SBATCH --time={}\n", options.merge_time.empty() ? default_merge_time
                                                                                     : std::string_view(options.merge_time));
    if (!options.merge_partition.empty()) text += fmt::format("#SBATCH --partition={}\n", options.merge_partition);
    if (!options.account.empty()) text += fmt::format("#SBATCH --account={}\n", options.account);
    return text;
}

}  // namespace shardrun::submit

#include "runner/run/report/summary_advice.hpp"

#include "base/error.hpp"

namespace shardrun::run {

std::string more_time_advice(const std::string& scheduler)
{
    // The setting `shardrun submit --time` writes for each target, named as its service names it.
    if (scheduler == "slurm") return "give the job more time (Slurm: --time), ";
    if (scheduler == "aws-batch") {
        return "give the job more time (AWS Batch: the job definition's timeout.attemptDurationSeconds, "
               "which shardrun submit --time sets), ";
    }
    if (scheduler == "gcp-batch") {
        return "give the job more time (Google Batch: the task's maxRunDuration, which shardrun submit --time sets), ";
    }
    if (scheduler == "pbs") return "give the job more time (PBS: -l walltime), ";
    if (scheduler == "lsf") return "give the job more time (LSF: -W), ";
    return "";  // mpirun, or no launcher: no time limit of its own to raise
}

std::string bucket_hint(int exit_code)
{
    if (exit_code == exit_bad_input) {
        return "the element is written by the other run now, not by this one: read it once that run has ended "
               "(see docs/troubleshooting.md#bucket-errors)";
    }
    return "the bucket does not hold every committed task, so its output is not complete there: once the bucket "
           "answers, a rerun with --resume (the job files' retry) runs the tasks it lacks "
           "(see docs/troubleshooting.md#bucket-errors)";
}

}  // namespace shardrun::run

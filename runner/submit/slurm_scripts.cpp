#include "runner/submit/slurm_scripts.hpp"

#include <fmt/format.h>

#include <cctype>
#include <string_view>

#include "io/layout/output_layout.hpp"
#include "runner/errors.hpp"
#include "runner/submit/slurm_options.hpp"
#include "runner/version.hpp"

namespace shardrun::submit {
namespace {

// `text` as it must stand inside a bash "..." string to print as itself (a path in a hint).
std::string in_double_quotes(std::string_view text)
{
    std::string escaped;
    for (const char c : text) {
        if (c == '\\' || c == '$' || c == '`' || c == '"') escaped += '\\';
        escaped += c;
    }
    return escaped;
}

// How a user submits `script` of this submission again: its absolute path, quoted for the shell
// and escaped for the echo "..." that prints it. Never $0: Slurm runs a spool copy of the script,
// gone once the job ended.
std::string script_in_hint(const SubmitFiles& files, const std::string& script)
{
    return in_double_quotes(shell_quote((files.dir / script).string()));
}

std::string common_header(const std::string& job_name)
{
    return fmt::format("#!/bin/bash\n#SBATCH --job-name={}\n", shell_quote(job_name));
}

std::string preamble(const SubmitFiles& files, const std::string& script)
{
    return fmt::format("# Written by `shardrun submit --to slurm` (shardrun {}); submit it again with: sbatch {}\n"
                       "set -u\n"
                       "cd {} || exit 1\n"
                       "shardrun={}\n"
                       "output={}\n",
                       shardrun_version, shell_quote((files.dir / script).string()), shell_quote(files.workdir.string()),
                       shell_quote(files.shardrun), shell_quote(files.output.string()));
}

// Debian's Open MPI has no Slurm PMI1/PMI2: without pmix its ranks die in MPI_Init.
constexpr const char* pmix_check = R"(
if ! srun --mpi=list 2>&1 | grep -q pmix; then
    echo "shardrun: this Slurm has no pmix MPI plugin ('srun --mpi=list' does not list pmix), and Open MPI ranks need srun --mpi=pmix; install Slurm's PMIx support (Debian: slurm-wlm with libpmix2) or run the job with mpirun" >&2
    exit 1
fi
)";

// A requeued element (SLURM_RESTART_COUNT > 0), or one whose shard folder already exists,
// continues what was committed instead of refusing the existing output. The folder is named by
// io's layout, with the shell's variables for the output and the element.
std::string resume_logic()
{
    const auto element_folder = io::layout::shards_dir("$output") / io::layout::element_name("$element");
    return R"(
element=${SLURM_ARRAY_TASK_ID:-0}
# This element as Slurm names it (the array's own job id would mean every element).
self=${SLURM_ARRAY_JOB_ID:+${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID:-}}
self=${self:-${SLURM_JOB_ID:-}}
resume=
if [ "${SLURM_RESTART_COUNT:-0}" -gt 0 ] || [ -d ")" + element_folder.string() + R"(" ]; then
    resume=--resume
fi
)";
}

// --signal=B:USR1@<lead> sends USR1 to this shell only, <lead> seconds before the time limit or
// up to 60 s earlier (sbatch(1), --signal: "Due to the resolution of event handling by Slurm,
// the signal may be sent up to 60 seconds earlier than specified"); the lead is the job's
// drain_timeout + 30 s unless --sbatch signal= says otherwise. The trap passes it on
// to this element's steps through scancel (srun itself would turn a signal it gets into SIGKILL
// for its tasks): shardrun drains, letting running tasks finish within drain_timeout, flushes
// what is committed and exits 3. Once the step has ended, the element is requeued and starts
// again with --resume. The line names the signal and the time left rather than assuming
// Slurm's time limit sent it: a user's `scancel --signal=USR1 --batch` lands here too.
std::string stop_logic(long lead)
{
    return fmt::format(R"(
stop_requested=0
# shellcheck disable=SC2317  # run by the trap
on_usr1() {{
    stop_requested=1
    # This element only ($self: <array job>_<element>): squeue -j <array job id> lists every element,
    # and an array's own id is also the job id of one of its elements.
    left=$(squeue -h -j "$self" -o %L 2>/dev/null | head -n 1)
    echo "shardrun: SIGUSR1 to the batch script (time left: ${{left:-unknown}}; --signal=B:USR1@{0}: Slurm sends it {0} s before the time limit, or up to 60 s earlier): draining array element $element; it will be requeued and resume if it made progress"
    scancel --signal=USR1 "$self" || echo "shardrun: scancel --signal=USR1 $self failed" >&2
}}
trap on_usr1 USR1
)",
                       lead);
}

// A requeue repeats the element with the same time: worth it only when the run let a task
// finish (exit 3). A drain before any task finished (exit 4) would repeat forever, each cycle
// burning the whole allocation (issue 35, point 1), and --max-requeues caps the rest.
std::string wait_and_requeue(long max_requeues, const std::string& run_script, bool array)
{
    // How to run this element again by hand (an element is named explicitly, see below).
    const auto again = (array ? "sbatch --array=$element " : "sbatch ") + run_script;
    return fmt::format(R"sh(step=$!
# wait returns early when the trap runs; wait again until the step has really ended.
while :; do
    wait "$step"
    status=$?
    kill -0 "$step" 2>/dev/null || break
done
restarts=${{SLURM_RESTART_COUNT:-0}}
if [ "$stop_requested" = 1 ] && [ "$status" -eq 4 ]; then
    echo "shardrun: array element $element made no progress before it was drained (the summary above names the task cut short); not requeued, as the same time would cut it short again: give it a longer time limit, checkpoint inside the task, or split it into smaller tasks, then: {1} (see docs/troubleshooting.md#slurm-requeue)" >&2
elif [ "$stop_requested" = 1 ] && [ "$status" -eq 3 ] && [ "$restarts" -ge {0} ]; then
    echo "shardrun: array element $element was drained again after $restarts requeues (--max-requeues {0}); not requeued: its committed tasks are kept; continue it with: {1} (see docs/troubleshooting.md#slurm-requeue)" >&2
elif [ "$stop_requested" = 1 ] && [ "$status" -eq 3 ]; then
    # Requeue once Slurm has torn the step down: a requeue during its cleanup can leave PMIx's
    # directory of the step behind, and the restarted step of the same id then fails to start.
    for _ in $(seq 60); do
        squeue -h -s -j "$self" -o %i 2>/dev/null | grep -q '\.[0-9]' || break
        sleep 1
    done
    echo "shardrun: step ended with exit code $status; requeueing $self to resume (requeue $((restarts + 1)) of at most {0})"
    scontrol requeue "$self"
fi
exit "$status"
)sh",
                       max_requeues, again);
}

}  // namespace

std::string slurm_run_script(const SubmitOptions& options, const SubmitFiles& files)
{
    std::string text = common_header(files.job_name);
    if (!options.time.empty()) text += fmt::format("#SBATCH --time={}\n", options.time);
    if (!options.partition.empty()) text += fmt::format("#SBATCH --partition={}\n", options.partition);
    if (options.array > 1) text += fmt::format("#SBATCH --array=0-{}\n", options.array - 1);
    text += fmt::format("#SBATCH --nodes={}\n#SBATCH --ntasks-per-node={}\n", options.nodes, options.ranks_per_node);
    if (options.gpus_per_rank > 0) text += fmt::format("#SBATCH --gpus-per-task={}\n", options.gpus_per_rank);
    text += slurm_run_option_lines(options);
    // A requeued element appends to its log, so the interrupted run's lines stay readable.
    const auto lead = usr1_lead_seconds(options, files.drain_timeout_seconds);
    text += fmt::format("#SBATCH --signal=B:USR1@{}\n#SBATCH --requeue\n#SBATCH --open-mode=append\n", lead);
    const auto log = options.array > 1 ? "slurm-%A_%a.out" : "slurm-%j.out";
    text += fmt::format("#SBATCH --output={}\n", shell_quote((files.dir / log).string()));
    text += preamble(files, "run.sbatch");
    text += fmt::format("job={}\n", shell_quote(files.job.string()));
    text += pmix_check;
    text += resume_logic();
    text += stop_logic(lead);
    // The element is named explicitly: an element resubmitted alone (sbatch --array=7) is
    // still element 7 of N, where Slurm's own variables would make it element 0 of 1.
    const auto array = options.array > 1 ? fmt::format(" --array-index \"$element\" --array-count {}", options.array)
                                         : std::string();
    const auto args = files.run_args.empty() ? std::string() : " " + shell_join(files.run_args);
    // Since Slurm 22.05 a step no longer inherits the job's --cpus-per-task: srun is told again.
    const auto cpus = options.cpus_per_task > 0 ? fmt::format(" --cpus-per-task={}", options.cpus_per_task) : std::string();
    text += fmt::format("\nsrun --mpi=pmix{} \"$shardrun\" run \"$job\"{} $resume{} &\n", cpus, array, args);
    text += wait_and_requeue(options.max_requeues, script_in_hint(files, "run.sbatch"), options.array > 1);
    return text;
}

std::string slurm_merge_script(const SubmitOptions& options, const SubmitFiles& files)
{
    // Its own partition and time (not the GPU partition's day): a merge needs one CPU for minutes.
    std::string text = common_header(files.job_name + "-merge");
    text += slurm_merge_option_lines(options);
    text += "#SBATCH --nodes=1\n#SBATCH --ntasks=1\n";
    text += fmt::format("#SBATCH --output={}\n", shell_quote((files.dir / "slurm-merge-%j.out").string()));
    text += preamble(files, "merge.sbatch");
    // Merge names the elements it lacks on stderr (command_merge.cpp: "array elements never
    // started: 1, 3; ..." and "... not finished: ..."); its exit code is 1 for those, for failed
    // tasks and for a write that failed alike. So the rerun hint comes from those lines only:
    // a full disk or a dead endpoint is not a missing element.
    text += R"(
{ errors=$("$shardrun" merge "$output" 2>&1 1>&3 3>&-); status=$?; } 3>&1
[ -n "$errors" ] && printf '%s\n' "$errors" >&2
elements=$(printf '%s\n' "$errors" | sed -n 's/^shardrun: array elements \(never started\|not finished\): \([0-9, ]*\);.*/\2/p' | tr -d ' ' | paste -sd, -)
if [ -n "$elements" ]; then
    echo "shardrun: MERGE INCOMPLETE (exit $status): $output lacks array elements $elements (merge's lines above say why)." >&2
    echo "shardrun: rerun them with: sbatch --array=$elements )" +
            script_in_hint(files, "run.sbatch") + R"( (they resume), then: $shardrun merge $output" >&2
elif [ "$status" -ne 0 ]; then
    echo "shardrun: merge exited $status with no array element missing; its lines above say why (failed tasks, or an error such as a full disk); after fixing an error, merge again: $shardrun merge $output" >&2
fi
exit "$status"
)";
    return text;
}

std::string parse_sbatch_id(const std::string& output)
{
    std::string id;
    for (const char c : output) {
        if (!std::isdigit(static_cast<unsigned char>(c))) break;
        id += c;
    }
    if (id.empty()) SHARDRUN_THROW(Error, "sbatch printed no job id (got '" + output + "')");
    return id;
}

}  // namespace shardrun::submit

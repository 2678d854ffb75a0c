#include "runner/submit/cloud_container.hpp"

namespace shardrun::submit {

std::string entrypoint_path(const SubmitFiles& files) { return (files.dir / "entrypoint").string(); }

std::vector<std::string> container_command(const SubmitFiles& files)
{
    // bash runs it even where the shared file system drops the executable bit.
    std::vector<std::string> command = files.remote_dir.empty()
                                           ? std::vector<std::string>{"bash", entrypoint_path(files), files.job.string()}
                                           : std::vector<std::string>{image_entrypoint, files.remote_dir + "/job.yaml"};
    command.insert(command.end(), files.run_args.begin(), files.run_args.end());
    return command;
}

std::vector<std::string> merge_command(const SubmitFiles& files)
{
    if (files.remote_dir.empty()) return {"bash", entrypoint_path(files), "--merge"};
    return {image_entrypoint, "--merge"};
}

std::vector<std::pair<std::string, std::string>> container_environment(const SubmitOptions& options,
                                                                        const SubmitFiles& files, bool multinode)
{
    std::vector<std::pair<std::string, std::string>> variables = {
        {"SHARDRUN_RANKS_PER_NODE", std::to_string(options.ranks_per_node)},
        // The vCPUs asked for: AWS Batch's VCPU on EC2 is a weight, so a container sees its whole host;
        // the ranks size their tasks' threads from this instead (runner/env/cpu_share.hpp).
        {"SHARDRUN_CPUS", std::to_string(options.vcpus)},
    };
    if (files.remote_dir.empty()) {
        variables.emplace_back("SHARDRUN_WORKDIR", files.workdir.string());
    } else if (!files.remote_workdir.empty()) {
        variables.emplace_back("SHARDRUN_WORKDIR", files.remote_workdir);
    }
    variables.emplace_back("SHARDRUN_OUTPUT", files.output.string());
    variables.emplace_back("SHARDRUN_BIN", files.shardrun);
    if (multinode) {
        // The nodes meet in a folder all of them see: the shared file system, or the bucket.
        variables.emplace_back("SHARDRUN_HOSTS_DIR",
                               files.remote_dir.empty() ? (files.dir / "hosts").string() : files.remote_dir + "/hosts");
    }
    return variables;
}

std::vector<std::pair<std::string, std::string>> merge_environment(const SubmitOptions& options, const std::string& mode,
                                                                    long attempts)
{
    if (options.array <= 1) return {};
    return {{"SHARDRUN_MERGE", mode}, {"SHARDRUN_ATTEMPTS", std::to_string(attempts)}};
}

void write_entrypoint(const SubmitFiles& files) { write_text_file(entrypoint_path(files), entrypoint_text(), true); }

}  // namespace shardrun::submit

#include "runner/submit/cloud_container.hpp"

namespace shardrun::submit {

std::string entrypoint_path(const SubmitFiles& files) { return (files.dir / "entrypoint").string(); }

std::vector<std::string> container_command(const SubmitFiles& files)
{
    // bash runs it even where the shared file system drops the executable bit.
    std::vector<std::string> command = {"bash", entrypoint_path(files), files.job.string()};
    command.insert(command.end(), files.run_args.begin(), files.run_args.end());
    return command;
}

std::vector<std::pair<std::string, std::string>> container_environment(const SubmitOptions& options,
                                                                        const SubmitFiles& files, bool multinode)
{
    std::vector<std::pair<std::string, std::string>> variables = {
        {"SHARDRUN_RANKS_PER_NODE", std::to_string(options.ranks_per_node)},
        {"SHARDRUN_WORKDIR", files.workdir.string()},
        {"SHARDRUN_OUTPUT", files.output.string()},
        {"SHARDRUN_BIN", files.shardrun},
    };
    if (multinode) variables.emplace_back("SHARDRUN_HOSTS_DIR", (files.dir / "hosts").string());
    return variables;
}

void write_entrypoint(const SubmitFiles& files) { write_text_file(entrypoint_path(files), entrypoint_text(), true); }

}  // namespace shardrun::submit

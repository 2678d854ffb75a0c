#pragma once

namespace shardrun::cli {

/**
 * The whole `shardrun` command line: picks the subcommand, runs it and maps errors to the exit
 * codes each command documents (Command::doc()). The shardrun executable's main() is only this
 * call; a program that registers its own task kinds (tasks::register_task_kind) calls it after them.
 * @param argc  as main() got it
 * @param argv  argv[1] is the subcommand ("run", "plan", ...)
 * @return the process exit code: 0 ok, 1 tasks failed, 2 bad input, 3 interrupted
 */
int main(int argc, char** argv);

}  // namespace shardrun::cli

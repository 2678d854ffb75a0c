#pragma once

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "runner/cli/command.hpp"

namespace shardrun::cli {

using CommandFactory = std::function<std::unique_ptr<Command>()>;

/** Every subcommand, in the order `shardrun --help` lists them. */
const std::vector<CommandFactory>& command_factories();

/** The subcommand called `name`, or nullptr. */
std::unique_ptr<Command> make_command(std::string_view name);

}  // namespace shardrun::cli

#include "runner/cli/commands.hpp"

#include "runner/cli/command_bench.hpp"
#include "runner/cli/command_docs.hpp"
#include "runner/cli/command_export.hpp"
#include "runner/cli/command_info.hpp"
#include "runner/cli/command_kinds.hpp"
#include "runner/cli/command_logs.hpp"
#include "runner/cli/command_merge.hpp"
#include "runner/cli/command_plan.hpp"
#include "runner/cli/command_report.hpp"
#include "runner/cli/command_run.hpp"
#include "runner/cli/command_selftest.hpp"
#include "runner/cli/command_status.hpp"
#include "runner/cli/command_submit.hpp"
#include "runner/cli/command_table.hpp"

namespace shardrun::cli {

const std::vector<CommandFactory>& command_factories()
{
    static const std::vector<CommandFactory> factories = {
        [] { return std::make_unique<RunCommand>(); },
        [] { return std::make_unique<PlanCommand>(); },
        [] { return std::make_unique<StatusCommand>(); },
        [] { return std::make_unique<LogsCommand>(); },
        [] { return std::make_unique<MergeCommand>(); },
        [] { return std::make_unique<TableCommand>(); },
        [] { return std::make_unique<ExportCommand>(); },
        [] { return std::make_unique<ReportCommand>(); },
        [] { return std::make_unique<SubmitCommand>(); },
        [] { return std::make_unique<InfoCommand>(); },
        [] { return std::make_unique<KindsCommand>(); },
        [] { return std::make_unique<SelftestCommand>(); },
        [] { return std::make_unique<BenchCommand>(); },
        [] { return std::make_unique<DocsCommand>(); },
    };
    return factories;
}

std::unique_ptr<Command> make_command(std::string_view name)
{
    for (const auto& factory : command_factories()) {
        auto command = factory();
        if (command->name() == name) return command;
    }
    return nullptr;
}

}  // namespace shardrun::cli

#include "runner/cli/table_columns.hpp"

#include <gtest/gtest.h>

#include "runner/cli/table_format.hpp"
#include "runner/errors.hpp"

namespace shardrun::cli {
namespace {

/** Two tasks with a param, status and the /tasks records the reader adds; task 1 never started. */
io::ResultsTable run_table()
{
    io::ResultsTable table;
    table.path = "r.h5";
    table.task_count = 2;
    table.has_result = {true, false};
    table.columns = {
        {"task", io::ColumnRole::task, std::vector<std::int64_t>{0, 1}, false},
        {"n", io::ColumnRole::param, std::vector<std::int64_t>{4, 8}, false},
        {"status", io::ColumnRole::status, std::vector<std::string>{"ok", "pending"}, false},
        {"exit_code", io::ColumnRole::record, std::vector<std::int64_t>{0, 0}, false},
        {"start", io::ColumnRole::record, std::vector<double>{1795652919.25, 0.0}, false, {false, true}, true},
        {"message", io::ColumnRole::record, std::vector<std::string>{"", "no, \"quoted\""}, false},
    };
    return table;
}

TEST(TableColumns, DefaultLeavesTheTaskRecordsOut)
{
    EXPECT_EQ(default_columns(run_table()), (std::vector<std::size_t>{0, 1, 2}));
}

TEST(TableColumns, NamedColumnsInTheirOrderWithTaskFirst)
{
    const auto table = run_table();

    EXPECT_EQ(named_columns(table, "message,exit_code"), (std::vector<std::size_t>{0, 5, 3}));
    EXPECT_EQ(named_columns(table, "n,task"), (std::vector<std::size_t>{1, 0}));
}

TEST(TableColumns, AnUnknownNameIsOneLineNamingItAndListingEveryColumn)
{
    EXPECT_THROW(
        {
            try {
                named_columns(run_table(), "exit_code,exitcode");
            } catch (const UsageError& e) {
                EXPECT_STREQ(e.what(), "table: --columns: r.h5 has no column 'exitcode'; did you mean 'exit_code'? "
                                       "columns: task, n, status, exit_code, start, message");
                throw;
            }
        },
        UsageError);
    EXPECT_THROW(named_columns(run_table(), "n,,status"), UsageError);
    EXPECT_THROW(named_columns(run_table(), "n,n"), UsageError);
}

TEST(TableFormat, TimesPrintAsIso8601UtcAndNeverStartedAsMissing)
{
    const auto table = run_table();
    const std::vector<std::size_t> columns{0, 4, 5};

    const auto text = table_text(table, {0, 1}, columns);
    const auto csv = table_csv(table, {0, 1}, columns);
    const auto json = table_json(table, {0, 1}, columns);

    EXPECT_EQ(text, "task  start                     message\n"
                    "   0  2026-11-26T00:28:39.250Z\n"
                    "   1  -                         no, \"quoted\"\n");
    // An empty text is "" and a missing cell empty, so that pandas tells them apart.
    EXPECT_EQ(csv, "task,start,message\n0,2026-11-26T00:28:39.250000Z,\"\"\n1,,\"no, \"\"quoted\"\"\"\n");
    EXPECT_EQ(json, "[\n{\"task\":0,\"start\":\"2026-11-26T00:28:39.250000Z\",\"message\":\"\"},\n"
                    "{\"task\":1,\"start\":null,\"message\":\"no, \\\"quoted\\\"\"}\n]\n");
}

}  // namespace
}  // namespace shardrun::cli

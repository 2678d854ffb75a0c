#include "runner/cli/table_query.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "runner/cli/table_format.hpp"
#include "runner/errors.hpp"

namespace shardrun::cli {
namespace {

/** Four tasks: lr, name (text), acc (result; task 3 failed, task 1 is NaN), status. */
io::ResultsTable small_table()
{
    io::ResultsTable table;
    table.path = "r.h5";
    table.task_count = 4;
    table.has_result = {true, true, true, false};
    table.columns = {
        {"task", io::ColumnRole::task, std::vector<std::int64_t>{0, 1, 2, 3}, false},
        {"lr", io::ColumnRole::param, std::vector<double>{0.1, 0.01, 0.1, 0.001}, false},
        {"name", io::ColumnRole::param, std::vector<std::string>{"b", "a,\"x\"", "c", "a"}, false},
        {"acc", io::ColumnRole::result, std::vector<double>{0.5, NAN, 0.9, -2147483648.0}, false},
        {"status", io::ColumnRole::status, std::vector<std::string>{"ok", "ok", "ok", "failed"}, false},
    };
    return table;
}

TEST(TableQuery, ParsesConditionsJoinedByAnd)
{
    const auto conditions = parse_where("acc>0.5 and  name == 'a b' and lr<=1e-2");

    ASSERT_EQ(conditions.size(), 3u);
    EXPECT_EQ(conditions[1].column, "name");
    EXPECT_EQ(conditions[1].op, "==");
    EXPECT_EQ(conditions[1].value, "a b");
    EXPECT_EQ(conditions[2].op, "<=");
}

TEST(TableQuery, RejectsWhatTheLanguageDoesNotHave)
{
    for (const char* text : {"acc>0.5 or lr<1", "acc=1", "acc", "acc>", "(acc>1)", "acc>1 and", "name=='a", "  "}) {
        EXPECT_THROW(parse_where(text), UsageError) << text;
    }
}

TEST(TableQuery, SortPutsNanAndMissingLastBothWays)
{
    const auto table = small_table();

    const auto up = select_rows(table, TableQuery{{}, "acc", false, std::nullopt});
    const auto down = select_rows(table, TableQuery{{}, "acc", true, std::nullopt});

    EXPECT_EQ(up, (std::vector<std::size_t>{0, 2, 1, 3}));
    EXPECT_EQ(down, (std::vector<std::size_t>{2, 0, 1, 3}));
}

TEST(TableQuery, WhereSkipsMissingAndNanAndTopCuts)
{
    const auto table = small_table();

    const auto rows = select_rows(table, TableQuery{parse_where("acc!=0.5"), std::nullopt, false, std::nullopt});
    const auto top = select_rows(table, TableQuery{parse_where("lr==0.1"), "task", true, 1});

    EXPECT_EQ(rows, (std::vector<std::size_t>{2}));
    EXPECT_EQ(top, (std::vector<std::size_t>{2}));
}

TEST(TableQuery, BadColumnsAndTypesAreUsageErrors)
{
    const auto table = small_table();

    EXPECT_THROW(select_rows(table, TableQuery{{}, "accc", false, std::nullopt}), UsageError);
    EXPECT_THROW(select_rows(table, TableQuery{parse_where("name<b"), std::nullopt, false, std::nullopt}), UsageError);
    EXPECT_THROW(select_rows(table, TableQuery{parse_where("lr==x"), std::nullopt, false, std::nullopt}), UsageError);
}

TEST(TableFormat, CsvQuotesAndLeavesMissingEmpty)
{
    const auto table = small_table();

    const auto csv = table_csv(table, {1, 3});

    EXPECT_EQ(csv, "task,lr,name,acc,status\n1,0.01,\"a,\"\"x\"\"\",nan,ok\n3,0.001,a,,failed\n");
}

TEST(TableFormat, JsonHasNullForNanAndMissing)
{
    const auto table = small_table();

    const auto json = table_json(table, {1, 3});

    EXPECT_EQ(json, "[\n{\"task\":1,\"lr\":0.01,\"name\":\"a,\\\"x\\\"\",\"acc\":null,\"status\":\"ok\"},\n"
                    "{\"task\":3,\"lr\":0.001,\"name\":\"a\",\"acc\":null,\"status\":\"failed\"}\n]\n");
}

TEST(TableFormat, TextAlignsNumbersRightAndTextLeft)
{
    const auto table = small_table();

    const auto text = table_text(table, {0, 3});

    EXPECT_EQ(text, "task     lr  name  acc  status\n"
                    "   0    0.1  b     0.5  ok\n"
                    "   3  0.001  a       -  failed\n");
}

}  // namespace
}  // namespace shardrun::cli

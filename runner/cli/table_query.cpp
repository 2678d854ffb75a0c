// The --where language, --sort and --top of `shardrun table`.
#include "runner/cli/table_query.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <functional>
#include <iterator>

#include "runner/errors.hpp"
#include "runner/job/yaml_context.hpp"

namespace shardrun::cli {
namespace {

constexpr const char* where_grammar =
    "allowed: NAME OP VALUE joined by 'and', OP one of == != < <= > >=, VALUE a number, a word or a "
    "quoted string, e.g. --where 'val_accuracy>0.9 and status==ok'";

[[noreturn]] void bad_where(const std::string& text, const std::string& what)
{
    SHARDRUN_THROW(UsageError, fmt::format("table: --where '{}': {}; {}", text, what, where_grammar));
}

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
bool is_op_char(char c) { return c == '=' || c == '!' || c == '<' || c == '>'; }

/** Reads a run of characters starting at `i` for which `keep` holds. */
std::string take_while(const std::string& text, std::size_t& i, const std::function<bool(char)>& keep)
{
    const auto start = i;
    while (i < text.size() && keep(text[i])) ++i;
    return text.substr(start, i - start);
}

std::string read_value(const std::string& text, std::size_t& i)
{
    if (i < text.size() && (text[i] == '\'' || text[i] == '"')) {
        const char quote = text[i];
        const auto close = text.find(quote, i + 1);
        if (close == std::string::npos) bad_where(text, fmt::format("the quote at column {} is not closed", i + 1));
        auto value = text.substr(i + 1, close - i - 1);
        i = close + 1;
        return value;
    }
    return take_while(text, i, [](char c) { return !is_space(c); });
}

Condition read_condition(const std::string& text, std::size_t& i)
{
    Condition condition;
    condition.column = take_while(text, i, [](char c) { return !is_space(c) && !is_op_char(c); });
    if (condition.column.empty()) bad_where(text, fmt::format("expected a column name at column {}", i + 1));
    if (condition.column.find_first_of("()") != std::string::npos) bad_where(text, "parentheses are not supported");
    take_while(text, i, is_space);
    condition.op = take_while(text, i, is_op_char);
    static const std::vector<std::string> ops{"==", "!=", "<", "<=", ">", ">="};
    if (condition.op.empty()) bad_where(text, fmt::format("expected an operator after '{}'", condition.column));
    if (std::find(ops.begin(), ops.end(), condition.op) == ops.end()) {
        bad_where(text, fmt::format("'{}' is not an operator{}", condition.op, condition.op == "=" ? " (use ==)" : ""));
    }
    take_while(text, i, is_space);
    const bool quoted = i < text.size() && (text[i] == '\'' || text[i] == '"');
    condition.value = read_value(text, i);
    if (condition.value.empty() && !quoted) {
        bad_where(text, fmt::format("expected a value after '{}{}'", condition.column, condition.op));
    }
    return condition;
}

std::optional<double> as_number(const std::string& text)
{
    double value = 0;
    const auto* end = text.data() + text.size();
    const auto [ptr, error] = std::from_chars(text.data(), end, value);
    if (error != std::errc() || ptr != end) return std::nullopt;
    return value;
}

bool compare(const std::string& op, double a, double b)
{
    if (op == "==") return a == b;
    if (op == "!=") return a != b;
    if (op == "<") return a < b;
    if (op == "<=") return a <= b;
    if (op == ">") return a > b;
    return a >= b;
}

/** A condition bound to its column: true for the rows it keeps. */
std::function<bool(std::size_t)> bind(const io::ResultsTable& table, const Condition& condition)
{
    const auto index = column_index(table, condition.column, "--where");
    const auto& column = table.columns[index];
    const auto present = [&table, index](std::size_t row) { return table.present(index, row); };
    if (const auto* text = std::get_if<std::vector<std::string>>(&column.values)) {
        if (condition.op != "==" && condition.op != "!=") {
            SHARDRUN_THROW(UsageError, fmt::format("table: --where: '{}' is a text column; compare it with == or != only",
                                                   column.name));
        }
        const bool equal = condition.op == "==";
        return [text, present, equal, value = condition.value](std::size_t row) {
            return present(row) && ((*text)[row] == value) == equal;
        };
    }
    const auto number = as_number(condition.value);
    if (!number) {
        SHARDRUN_THROW(UsageError, fmt::format("table: --where: '{}' is a number column and '{}' is not a number",
                                               column.name, condition.value));
    }
    return [&column, present, op = condition.op, value = *number](std::size_t row) {
        if (!present(row)) return false;
        if (const auto* ints = std::get_if<std::vector<std::int64_t>>(&column.values)) {
            return compare(op, static_cast<double>((*ints)[row]), value);
        }
        const double cell = std::get<std::vector<double>>(column.values)[row];
        return !std::isnan(cell) && compare(op, cell, value);
    };
}

/** Orders rows by one column: missing cells and NaN last in both directions, ties in task order. */
void sort_rows(const io::ResultsTable& table, std::size_t index, bool descending, std::vector<std::size_t>& rows)
{
    const auto& values = table.columns[index].values;
    const auto absent = [&](std::size_t row) {
        if (!table.present(index, row)) return true;
        const auto* floats = std::get_if<std::vector<double>>(&values);
        return floats && std::isnan((*floats)[row]);
    };
    const auto less = [&](std::size_t a, std::size_t b) {
        return std::visit([&](const auto& column) { return column[a] < column[b]; }, values);
    };
    std::stable_sort(rows.begin(), rows.end(), [&](std::size_t a, std::size_t b) {
        const bool absent_a = absent(a), absent_b = absent(b);
        if (absent_a || absent_b) return !absent_a && absent_b;
        return descending ? less(b, a) : less(a, b);
    });
}

}  // namespace

std::vector<Condition> parse_where(const std::string& text)
{
    std::vector<Condition> conditions;
    std::size_t i = 0;
    take_while(text, i, is_space);
    if (i == text.size()) bad_where(text, "the expression is empty");
    while (true) {
        conditions.push_back(read_condition(text, i));
        take_while(text, i, is_space);
        if (i == text.size()) return conditions;
        const auto word = take_while(text, i, [](char c) { return !is_space(c); });
        if (word != "and") bad_where(text, fmt::format("'{}' is not allowed here (only 'and' joins conditions)", word));
        take_while(text, i, is_space);
        if (i == text.size()) bad_where(text, "expected a condition after 'and'");
    }
}

std::size_t column_index(const io::ResultsTable& table, const std::string& name, const std::string& option)
{
    const int index = table.find(name);
    if (index >= 0) return static_cast<std::size_t>(index);
    const auto names = table.names();
    auto closest = job::closest_name(name, names);
    // Abbreviations (val_acc for val_accuracy) are too far for the edit distance; a unique prefix is clear.
    if (closest.empty()) {
        std::vector<std::string> prefixed;
        std::copy_if(names.begin(), names.end(), std::back_inserter(prefixed),
                     [&name](const std::string& column) { return !name.empty() && column.starts_with(name); });
        if (prefixed.size() == 1) closest = prefixed.front();
    }
    SHARDRUN_THROW(UsageError, fmt::format("table: {}: {} has no column '{}'; {}columns: {}", option, table.path, name,
                                           closest.empty() ? "" : "did you mean '" + closest + "'? ", fmt::join(names, ", ")));
}

std::vector<std::size_t> select_rows(const io::ResultsTable& table, const TableQuery& query)
{
    std::vector<std::function<bool(std::size_t)>> conditions;
    for (const auto& condition : query.where) conditions.push_back(bind(table, condition));
    std::optional<std::size_t> sort_index;
    if (query.sort) sort_index = column_index(table, *query.sort, "--sort");
    std::vector<std::size_t> rows;
    for (std::size_t row = 0; row < table.task_count; ++row) {
        if (std::all_of(conditions.begin(), conditions.end(), [row](const auto& keep) { return keep(row); })) {
            rows.push_back(row);
        }
    }
    if (sort_index) {
        sort_rows(table, *sort_index, query.descending, rows);
    } else if (query.descending) {
        std::reverse(rows.begin(), rows.end());
    }
    if (query.top && rows.size() > *query.top) rows.resize(*query.top);
    return rows;
}

}  // namespace shardrun::cli

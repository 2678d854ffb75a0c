#include "runner/cli/command_table.hpp"

#include <iostream>

#include "io/read/live_snapshot.hpp"
#include "io/read/results_table.hpp"
#include "runner/cli/table_columns.hpp"
#include "runner/cli/table_format.hpp"
#include "runner/cli/table_pivot.hpp"
#include "runner/cli/table_watch.hpp"
#include "runner/errors.hpp"
#include "runner/storage/remote_copy.hpp"

namespace po = boost::program_options;

namespace shardrun::cli {

void TableCommand::add_options(po::options_description& options, po::positional_options_description& positional)
{
    options.add_options()
        ("output", po::value<std::string>(&path_), "the results file (output.path of the job)")
        ("sort", po::value<std::string>(&sort_), "order the rows by this column (numbers numerically; NaN and "
                                                  "tasks without a result last)")
        ("desc", po::bool_switch(&query_.descending), "descending order (largest first)")
        ("top", po::value<long long>(), "print only the first N rows (after --where and --sort)")
        ("columns", po::value<std::string>(&columns_), "print these columns, in this order (task first unless named): "
                                                        "any param, result, status, /tasks column (attempts, rank, host, "
                                                        "device, start, end, exit_code, message, ...) or seconds (end - "
                                                        "start), e.g. --columns exit_code,attempts,seconds,host,message")
        ("where", po::value<std::string>(&where_), "keep the rows where EXPR holds: NAME OP VALUE joined by 'and', "
                                                    "OP one of == != < <= > >=, e.g. 'val_accuracy>0.9 and status==ok'")
        ("pivot", po::value<std::string>(&pivot_), "turn this param's values into columns of --value, one row per "
                                                    "combination of the other params, and a ratio column named for "
                                                    "what it divides (see --ratio), e.g. --pivot device")
        ("value", po::value<std::string>(&value_)->default_value("seconds"), "the number column --pivot spreads")
        ("ratio", po::value<std::string>(&ratio_), "the ratio column of --pivot: A/B divides the value of A by "
                                                    "B's (e.g. cuda/cpu); default with two values: how many times "
                                                    "better the second is, first/second for a time (seconds, *_seconds, "
                                                    "*_time, *_s, *_ms), second/first otherwise (gflops)")
        ("csv", po::bool_switch(&csv_), "print CSV (for pandas.read_csv)")
        ("json", po::bool_switch(&json_), "print a JSON array of records (for pandas.read_json)")
        ("watch", po::value<std::string>(), "while a run writes the output, print the table of what it committed "
                                            "every SECONDS (e.g. 30, or 0.5), then the final table when the run ends; "
                                            "Ctrl-C stops watching");
    positional.add("output", 1);
}

CommandDoc TableCommand::doc() const
{
    return {
        .description =
            "Prints a results file as a table, one row per task: its params, its scalar results and its status, or "
            "the columns `--columns` names (any param, result or per-task column such as attempts, host, exit_code "
            "or seconds). `--where` keeps the rows an expression holds for, `--sort` and `--top` order and cut them, "
            "and `--pivot` turns one param's values into columns (a GPU-vs-CPU table with its ratio). `--csv` and "
            "`--json` print what pandas reads. While a run writes the output it prints what was committed so far, "
            "and says so on stderr; `--watch` prints that again every few seconds until the run ends.\n\n"
            "Reach for it to look at results without writing Python: the best points of a sweep, the failed tasks "
            "and their messages, the slowest hosts, or a CSV for a spreadsheet.",
        .example = "shardrun table results/heat-sweep.h5 --sort total_heat --desc --top 5",
        .exit_codes = {
            {exit_ok, "the table was printed (of a running job: the tasks committed so far); --watch stopped with "
                      "Ctrl-C too"},
            {exit_task_failed, "an output in a bucket could not be downloaded (one line quoting rclone), or the "
                               "file's columns disagree with each other (a damaged file)"},
            {exit_bad_input, "usage error; no results file at that path, a file that is not a readable shardrun "
                             "results file, or only the shards of a job with no results file yet (merge it, or "
                             "--resume it); a column, --where expression or --pivot it does not know (one line naming "
                             "the columns there are)"},
        },
    };
}

void TableCommand::check(const po::variables_map& values)
{
    if (!values.count("output")) SHARDRUN_THROW(UsageError, "table: name the results file, e.g. shardrun table results/heat.h5");
    if (csv_ && json_) SHARDRUN_THROW(UsageError, "table: --csv and --json exclude each other; choose one");
    if (values.count("sort")) query_.sort = sort_;
    has_where_ = values.count("where") > 0;
    has_pivot_ = values.count("pivot") > 0;
    has_columns_ = values.count("columns") > 0;
    if (!has_pivot_ && !values["value"].defaulted()) SHARDRUN_THROW(UsageError, "table: --value needs --pivot PARAM");
    if (!has_pivot_ && values.count("ratio")) SHARDRUN_THROW(UsageError, "table: --ratio needs --pivot PARAM");
    if (values.count("watch")) {
        watch_seconds_ = parse_watch_seconds(values["watch"].as<std::string>());
        if (csv_ || json_) SHARDRUN_THROW(UsageError, "table: --watch prints tables for people; it excludes --csv and --json");
    }
    if (values.count("top")) {
        const auto top = values["top"].as<long long>();
        if (top < 0) SHARDRUN_THROW(UsageError, "table: --top " + std::to_string(top) + ": give a count of rows, 0 or more");
        query_.top = static_cast<std::size_t>(top);
    }
}

std::string TableCommand::render(const io::ResultsTable& read, bool committed_only) const
{
    auto where = query_.where;
    // A running job's snapshot: the tasks it committed, not the rows still to come.
    if (committed_only) where.push_back(Condition{"status", "!=", "pending"});
    // --where picks tasks before the pivot; --sort and --top order and cut its rows.
    const auto table = has_pivot_ ? pivot_table(read, select_rows(read, {where, {}, false, {}}), pivot_, value_, ratio_)
                                  : read;
    auto query = query_;
    query.where = where;
    if (has_pivot_) query.where.clear();
    // Resolved before anything is printed, so that a bad name is one line and no table.
    const auto columns = has_columns_ ? named_columns(table, columns_) : default_columns(table);
    const auto rows = select_rows(table, query);
    return csv_ ? table_csv(table, rows, columns) : json_ ? table_json(table, rows, columns) : table_text(table, rows, columns);
}

int TableCommand::print_once() const
{
    // Reads files only: no MPI, so it works on a login node, while the job runs too, and after a
    // one-element run stopped before writing its master (what it committed, with a note).
    if (const auto live = io::LiveSnapshot::take_committed(path_, io::SnapshotFields::scalar)) {
        auto read = io::read_results_table(live->file().string());
        read.path = path_;
        const auto text = render(read, true);
        // On stderr: stdout stays the table, CSV or JSON a script reads.
        std::cerr << live->note() << "\n";
        std::cout << text;
        return exit_ok;
    }
    std::cout << render(io::read_results_table(path_), false);
    return exit_ok;
}

int TableCommand::watch() const
{
    return watch_table(path_, watch_seconds_, [this](const io::ResultsTable& table) { return render(table, true); },
                       [this] { return print_once(); });
}

int TableCommand::run()
{
    // The expression is parsed here, not in check(), so a mistake in it is one line, not the option table.
    if (has_where_) query_.where = parse_where(where_);
    if (watch_seconds_ > 0 && storage::is_remote(path_)) {
        SHARDRUN_THROW(UsageError, "table: --watch " + path_ + ": an output in object storage is read as a copy; run "
                                   "table without --watch (again when you want fresh rows)");
    }
    const auto remote = storage::open_remote_copy(path_);  // an s3:// or gs:// output: a downloaded copy
    if (remote) remote->hold_unfinished();  // unfinished elements read as running ones: their committed rows
    return watch_seconds_ > 0 ? watch() : print_once();
}

}  // namespace shardrun::cli

#pragma once

#include <string>

#include "io/read/results_table.hpp"
#include "runner/cli/command.hpp"
#include "runner/cli/table_query.hpp"

namespace shardrun::cli {

/**
 * `shardrun table OUT [--columns A,B] [--sort F] [--desc] [--top N] [--where EXPR] [--pivot P [--value F] [--ratio A/B]]
 * [--csv|--json] [--watch SECONDS]`: the params, scalar results and status of every task of a results file (or the
 * columns --columns names, /tasks columns included), one row per task;
 * or, with --pivot, one row per combination of the other params (see pivot_table).
 * While a run writes the output, it reads a snapshot of the rows committed so far
 * (io/read/live_snapshot.hpp) and says `running: N of T committed` on stderr.
 */
class TableCommand : public Command {
public:
    std::string_view name() const noexcept override { return "table"; }
    std::string_view synopsis() const noexcept override
    {
        return "print params, scalar results and status, one row per task (sort, filter, CSV, JSON)";
    }
    std::string_view arguments() const noexcept override { return "OUTPUT.h5"; }
    CommandDoc doc() const override;
    int run() override;

protected:
    void add_options(boost::program_options::options_description& options,
                     boost::program_options::positional_options_description& positional) override;
    void check(const boost::program_options::variables_map& values) override;

private:
    /**
     * The table of `read` as --pivot, --columns, --sort, --top and the format ask;
     * `committed_only` (a snapshot of a running job) leaves out the pending rows.
     */
    std::string render(const io::ResultsTable& read, bool committed_only) const;
    /** Reads the output (a snapshot while a run writes it, else its master) and prints it once. */
    int print_once() const;
    /** --watch: a snapshot every watch_seconds_ while the run goes on, then the final table. */
    int watch() const;

    std::string path_;
    double watch_seconds_ = 0;  ///< 0: no --watch
    std::string where_;
    bool has_where_ = false;
    std::string pivot_;
    std::string value_;
    std::string ratio_;
    bool has_pivot_ = false;
    std::string columns_;
    bool has_columns_ = false;
    std::string sort_;
    bool csv_ = false;
    bool json_ = false;
    TableQuery query_;
};

}  // namespace shardrun::cli

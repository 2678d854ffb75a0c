#pragma once

#include <string>

#include "runner/cli/command.hpp"

namespace shardrun::cli {

/**
 * `shardrun docs PAGE [COMMAND]`: prints a reference page as Markdown, written from the tables
 * the program itself runs on (job fields, task kinds, the commands' options), or the text
 * help2man makes a man page of. scripts/docs-reference and the build's man pages run it;
 * `shardrun --help` does not list it. Opens no file and starts no MPI.
 */
class DocsCommand : public Command {
public:
    std::string_view name() const noexcept override { return "docs"; }
    std::string_view synopsis() const noexcept override
    {
        return "print a reference page (job-file, kinds, cli COMMAND) as Markdown, for the docs site and man pages";
    }
    std::string_view arguments() const noexcept override { return "job-file | kinds | cli [COMMAND] | man [COMMAND] | man-include [COMMAND] | commands"; }
    bool listed() const noexcept override { return false; }
    CommandDoc doc() const override;
    int run() override;

protected:
    void add_options(boost::program_options::options_description& options,
                     boost::program_options::positional_options_description& positional) override;
    void check(const boost::program_options::variables_map& values) override;

private:
    std::string page_;
    std::string command_;
};

}  // namespace shardrun::cli

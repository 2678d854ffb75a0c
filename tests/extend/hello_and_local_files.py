"""The edits of the throwaway subcommand `hello` and submit target `local` that
throwaway_subcommand_and_target_test.py makes, keyed by the paths of the "A subcommand" and
"A submit target" lists of docs/developing/extending.md. A new file is its whole text; an edit of a file that stands is a function
from its text to the new text, which fails loudly when its anchor is gone."""

SUBCOMMAND = "hello"
TARGET = "local"


def insert(anchor, addition, after):
    """An edit that puts `addition` just after (or before) the first `anchor`."""
    def edit(text):
        if anchor not in text:
            raise AssertionError(f"anchor {anchor!r} is gone")
        return text.replace(anchor, anchor + addition if after else addition + anchor, 1)
    return edit


def insert_after(anchor, addition):
    return insert(anchor, addition, after=True)


def insert_before(anchor, addition):
    return insert(anchor, addition, after=False)


def chain(*edits):
    def edit(text):
        for one in edits:
            text = one(text)
        return text
    return edit


SUBCOMMAND_FILES = {
    "runner/cli/command_NAME.hpp": r"""#pragma once

#include "runner/cli/command.hpp"

namespace shardrun::cli {

/** `shardrun hello [--times N]`: says hello N times (a throwaway subcommand). */
class HelloCommand : public Command {
public:
    std::string_view name() const noexcept override { return "hello"; }
    std::string_view synopsis() const noexcept override { return "say hello"; }
    CommandDoc doc() const override;
    int run() override;

protected:
    void add_options(boost::program_options::options_description& options,
                     boost::program_options::positional_options_description& positional) override;
    void check(const boost::program_options::variables_map& values) override;

private:
    long times_ = 1;
};

}  // namespace shardrun::cli
""",
    "runner/cli/command_NAME.cpp": r"""#include "runner/cli/command_hello.hpp"

#include <iostream>

#include "runner/errors.hpp"

namespace po = boost::program_options;

namespace shardrun::cli {

void HelloCommand::add_options(po::options_description& options, po::positional_options_description& /*positional*/)
{
    options.add_options()("times", po::value<long>(&times_)->default_value(1), "how many times");
}

CommandDoc HelloCommand::doc() const
{
    return {
        .description = "Prints hello, once per --times.\n\nReach for it to see a new subcommand work end to end.",
        .example = "shardrun hello --times 3",
        .exit_codes = {{exit_ok, "said hello"}, {exit_bad_input, "usage error: --times below 1"}},
    };
}

void HelloCommand::check(const po::variables_map& /*values*/)
{
    if (times_ < 1) SHARDRUN_THROW(UsageError, "hello: --times must be at least 1");
}

int HelloCommand::run()
{
    for (long i = 0; i < times_; ++i) std::cout << "hello\n";
    return 0;
}

}  // namespace shardrun::cli
""",
    "runner/cli/commands.cpp": chain(
        insert_before('#include "runner/cli/command_info.hpp"', '#include "runner/cli/command_hello.hpp"\n'),
        insert_after("[] { return std::make_unique<BenchCommand>(); },\n",
                     "        [] { return std::make_unique<HelloCommand>(); },\n")),
    "runner/CMakeLists.txt": insert_after("  cli/command_submit.cpp\n", "  cli/command_hello.cpp\n"),
    "tests/runner/cli/command_checks_test.cpp": insert_after(
        "static const std::multimap<std::string, Refusal> cases = {\n",
        '        {"hello", {{"--times", "0"}, "hello: --times must be at least 1"}},\n'),
    "tests/cli/run/NAME_test.py": r'''"""`shardrun hello`: says hello as often as asked."""
import unittest

from harness import run


class HelloTest(unittest.TestCase):
    def test_says_hello_twice(self):
        proc = run(["hello", "--times", "2"])
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(proc.stdout, "hello\nhello\n")


if __name__ == "__main__":
    unittest.main()
''',
    "docs/getting-started.md": insert_after("\n## Using it\n\n", "    build/shardrun hello --times 3                               # prints hello 3 times\n"),
}

TARGET_FILES = {
    "runner/submit/target_NAME.cpp": r"""#include <fstream>
#include <ostream>
#include <string>

#include "runner/errors.hpp"
#include "runner/submit/submit_targets.hpp"

namespace shardrun::submit {
namespace {

// The target's own option: `submit` parses once per process, so a value of this file serves.
std::string greeting;

long local_ranks(const SubmitOptions& options) { return options.nodes * options.ranks_per_node; }

void validate_local(SubmitOptions& options)
{
    if (options.array != 1) SHARDRUN_THROW(UsageError, "submit: --to local runs one element; --array must be 1");
}

int submit_local(const SubmitOptions& options, const SubmitFiles& files, std::ostream& out)
{
    std::ofstream(files.dir / "run.sh") << "#!/bin/sh\n# " << greeting << "\nmpirun -np " << local_ranks(options) << " "
                                        << files.shardrun << " run " << files.job.string() << "\n";
    out << "wrote " << (files.dir / "run.sh").string() << "\n";
    return 0;
}

void add_local_options(boost::program_options::options_description& options, SubmitOptions& /*values*/)
{
    namespace po = boost::program_options;
    options.add_options()("greeting", po::value<std::string>(&greeting)->default_value("hi"), "local: the script's comment");
}

const OptionGroup local_options{"This machine (--to local)", add_local_options};
const OptionGroup* const local_option_groups[] = {&local_options};

}  // namespace

// extern: a namespace-scope const has internal linkage otherwise; submit_targets.cpp lists it.
extern const TargetEntry local_target{"local", "this machine", local_ranks, true, validate_local, submit_local,
                                      local_option_groups};

}  // namespace shardrun::submit
""",
    "runner/submit/submit_targets.cpp": chain(
        insert_after("extern const TargetEntry gcp_batch_target;\n", "extern const TargetEntry local_target;\n"),
        insert_after("&gcp_batch_target", ", &local_target")),
    "runner/CMakeLists.txt": insert_after("  submit/target_gcp_batch.cpp\n", "  submit/target_local.cpp\n"),
    "tests/cli/submit/submit_test.py": insert_before('\nif __name__ == "__main__":', r'''
class LocalTargetTest(unittest.TestCase):
    def test_writes_a_script_with_its_own_option(self):
        s = Submission(self, "local", "--ranks-per-node", "2", "--greeting", "ahoy")
        script = s.text("run.sh")
        self.assertIn("# ahoy", script)
        self.assertIn("mpirun -np 2 ", script)
        self.assertIn("--greeting", run(["submit", "--help"]).stdout)

'''),
    "docs/launchers/index.md": insert_after("\n## The targets\n\n", "- `local`: a script for this machine.\n"),
}

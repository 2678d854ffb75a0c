#include "runner/cli/command.hpp"

#include <boost/program_options/parsers.hpp>
#include <iostream>
#include <sstream>

#include "runner/errors.hpp"

namespace po = boost::program_options;

namespace shardrun::cli {

std::string Command::help() const
{
    po::options_description options(std::string("Options of 'shardrun ") + std::string(name()) + "'");
    po::positional_options_description positional;
    const_cast<Command*>(this)->add_options(options, positional);
    options.add_options()("help,h", "show this help");
    std::ostringstream text;
    text << "usage: shardrun " << name() << " [options] " << arguments() << "\n  " << synopsis() << "\n\n"
         << options;
    return text.str();
}

bool Command::setup(const std::vector<std::string>& args)
{
    po::options_description options;
    po::positional_options_description positional;
    add_options(options, positional);
    options.add_options()("help,h", "show this help");
    po::variables_map values;
    try {
        po::store(po::command_line_parser(args).options(options).positional(positional).run(), values);
        if (values.count("help")) {
            std::cout << help();
            return false;
        }
        po::notify(values);
    } catch (const po::error& e) {
        SHARDRUN_THROW(UsageError, std::string(name()) + ": " + e.what());
    }
    check(values);
    return true;
}

}  // namespace shardrun::cli

#include "runner/cli/command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/program_options/parsers.hpp>
#include <iostream>
#include <sstream>

#include "runner/cli/help_text.hpp"
#include "runner/errors.hpp"
#include "runner/job/url_typos.hpp"
#include "runner/job/yaml_context.hpp"

namespace po = boost::program_options;

namespace shardrun::cli {
namespace {

/**
 * " (did you mean --force?)" for an option that is not one: the long options `typed` begins
 * (a prefix, which Boost would once have taken as that option), else the closest by spelling.
 */
std::string option_hint(const po::options_description& options, std::string typed)
{
    typed.erase(0, typed.find_first_not_of('-'));
    std::vector<std::string> names, starting;
    for (const auto& option : options.options()) {
        const auto& name = option->long_name();
        if (name.empty()) continue;
        names.push_back(name);
        if (!typed.empty() && name.rfind(typed, 0) == 0) starting.push_back("--" + name);
    }
    if (starting.size() == 1) return " (did you mean " + starting.front() + "?)";
    if (starting.size() > 1) {
        std::string list;
        for (const auto& name : starting) list += (list.empty() ? "" : ", ") + name;
        return " (did you mean one of " + list + "?)";
    }
    const auto closest = job::closest_name(typed, names);
    return closest.empty() ? "" : " (did you mean --" + closest + "?)";
}

/**
 * A results path or a file to write that is a misspelled URL (s3:/b/x.h5, S3://b/x.h5) would be
 * read as a missing local file, or written as one under ./s3:/ (issue 34): one line, exit 2.
 */
/** Whether `option` ("--job") is one of the arguments given by position. */
bool is_positional(const po::positional_options_description& positional, const std::string& option)
{
    const auto count = std::min(positional.max_total_count(), 8u);  // unlimited: the last name repeats
    for (unsigned i = 0; i < count; ++i) {
        if ("--" + positional.name_for_position(i) == option) return true;
    }
    return false;
}

void check_paths(std::string_view command, const po::variables_map& values)
{
    for (const char* option : {"output", "png", "html", "stats", "grid"}) {
        const auto found = values.find(option);
        if (found == values.end()) continue;
        const auto* path = boost::any_cast<std::string>(&found->second.value());
        if (path == nullptr) continue;
        if (const auto typo = storage::misspelled_url(*path)) {
            const auto name = std::string_view(option) == "output" ? std::string() : std::string("--") + option + " ";
            SHARDRUN_THROW(UsageError, fmt::format("{}: {}{}", command, name, *typo));
        }
    }
}

/** Boost's style without allow_guessing: `--f` must not mean --force (issue 35, point 2). */
constexpr int exact_options = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;

}  // namespace

std::string Command::page() const { return fmt::format("docs/reference/cli/{}.md", name()); }

po::options_description Command::options() const
{
    po::options_description options(std::string("Options of 'shardrun ") + std::string(name()) + "'");
    po::positional_options_description positional;
    // add_options() only declares; it binds values to members, which a declaration leaves alone.
    const_cast<Command*>(this)->add_options(options, positional);
    options.add_options()("help,h", "show this help");
    return options;
}

std::string Command::help() const
{
    // Prose wrapped to Boost's 80 columns, indented under the usage line as the options are.
    constexpr std::size_t width = 80;
    const auto doc = this->doc();
    std::ostringstream text;
    text << "usage: shardrun " << name() << " [options] " << arguments() << "\n  " << synopsis() << "\n";
    for (const auto& paragraph : paragraphs(doc.description)) text << "\n" << wrapped(plain_text(paragraph), width, 2, 2) << "\n";
    text << "\nExample:\n  " << doc.example << "\n\n" << options() << "\nExit codes:\n";
    for (const auto& [code, meaning] : doc.exit_codes) {
        const auto tag = fmt::format("  {}  ", code);  // then the meaning, its further lines under its first
        text << tag << wrapped(plain_text(meaning), width, tag.size(), tag.size()).substr(tag.size()) << "\n";
    }
    // The page is generated (not in a checkout): say where a reader finds it and its man twin.
    // The page is generated (not in a checkout): `shardrun docs cli NAME` prints it anywhere.
    text << "\nThe same as `shardrun docs cli " << name() << "` prints, as man shardrun-" << name()
         << " after cmake --install, and as a page of the site scripts/docs builds:\nReference: " << page() << "\n";
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
        po::store(po::command_line_parser(args).options(options).positional(positional).style(exact_options).run(), values);
        if (values.count("help")) {
            std::cout << help();
            return false;
        }
        po::notify(values);
    } catch (const po::unknown_option& e) {
        SHARDRUN_THROW(UsageError, std::string(name()) + ": " + e.what() + option_hint(options, e.get_option_name()) +
                                       "; options are spelled in full");
    } catch (const po::required_option& e) {
        // A missing argument is named as the synopsis writes it, not as Boost's option ("--job").
        if (is_positional(positional, e.get_option_name())) {
            SHARDRUN_THROW(UsageError, fmt::format("{}: {} is missing; write shardrun {} {} (e.g. {})", name(),
                                                   arguments(), name(), arguments(), doc().example));
        }
        SHARDRUN_THROW(UsageError, std::string(name()) + ": " + e.what());
    } catch (const po::too_many_positional_options_error&) {
        if (arguments().empty()) SHARDRUN_THROW(UsageError, fmt::format("{}: takes no arguments, only --options", name()));
        SHARDRUN_THROW(UsageError, fmt::format("{}: too many arguments; it takes shardrun {} {} (everything else is an "
                                               "--option; a value with spaces goes in quotes)",
                                               name(), name(), arguments()));
    } catch (const po::error& e) {
        SHARDRUN_THROW(UsageError, std::string(name()) + ": " + e.what());
    }
    check_paths(name(), values);
    check(values);
    return true;
}

}  // namespace shardrun::cli

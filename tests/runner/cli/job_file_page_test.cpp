// The job-file reference page (issue 39, point 2) against what the parser accepts: each section's
// keys as the parser's own "unknown key ...; allowed: ..." line lists them (so a key a section
// reader accepts outside the table is caught too), and each row's type, default and description.
// Links only the job library, so that a changed field table rebuilds little before this runs.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "runner/cli/job_file_page.hpp"
#include "runner/job/job_fields.hpp"
#include "tests/runner/cli/markdown_rows.hpp"
#include "tests/runner/job/job_file_error.hpp"

namespace shardrun::cli {
namespace {

const std::vector<std::string> known_tasks = {"exec", "noop"};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/** "`schedule` {#schedule}" -> "schedule", "Top level {#top-level}" -> "": the mapping a heading is about. */
std::string section_of(const std::string& heading)
{
    if (heading.starts_with("Top level")) return "";
    const auto close = heading.find('`', 1);
    return heading.starts_with("`") && close != std::string::npos ? heading.substr(1, close - 1) : "?" + heading;
}

/** "`schedule.kind`" -> "kind". */
std::string key_of(const std::string& cell)
{
    const auto path = cell.substr(1, cell.size() - 2);
    return path.substr(path.find('.') == std::string::npos ? 0 : path.find('.') + 1);
}

/** section -> the keys the job-file page lists under it. */
std::map<std::string, std::set<std::string>> page_keys()
{
    std::map<std::string, std::set<std::string>> keys;
    for (const auto& row : page_rows(job_file_page())) keys[section_of(row.heading)].insert(key_of(row.cells.at(0)));
    return keys;
}

/** A job file whose `section` mapping holds `key` (a null value) and what that section needs besides. */
std::string probe_job(const std::string& section, const std::string& key)
{
    const bool exec = section == "exec";
    std::string text = exec ? "task: exec\n" : "task: noop\n";
    if (section.empty()) return key == "task" ? text : text + key + ": ~\n";
    const auto needed = exec && key != "argv" ? "argv: [true], " : "";
    return text + section + ": {" + needed + key + ": ~}\n";
}

/** The keys the parser accepts in `section`, as its unknown-key line lists them ("; allowed: a, b"). */
std::set<std::string> parser_keys(const std::string& section)
{
    const auto message = job::job_file_error(probe_job(section, "zz_no_such_key"), known_tasks);
    const auto path = section.empty() ? std::string("zz_no_such_key") : section + ".zz_no_such_key";
    EXPECT_TRUE(contains(message, " " + path + ": unknown key")) << "the probe of '" << section << "' met: " << message;
    std::set<std::string> keys;
    const auto allowed = message.find("; allowed: ");
    if (allowed == std::string::npos) return keys;
    std::istringstream list(message.substr(allowed + 11));
    for (std::string key; std::getline(list, key, ',');) keys.insert(key.substr(key.find_first_not_of(' ')));
    return keys;
}

TEST(JobFilePage, ListsExactlyTheKeysTheParserAcceptsInEachSection)
{
    const auto listed = page_keys();

    ASSERT_TRUE(listed.count("")) << "no top-level table";
    for (const auto& [section, keys] : listed) {
        EXPECT_EQ(parser_keys(section), keys) << "section '" << section << "': the parser's keys (left) and the page's";
        for (const auto& key : keys) {
            const auto message = job::job_file_error(probe_job(section, key), known_tasks);
            EXPECT_FALSE(contains(message, ": unknown key")) << section << "." << key << ": " << message;
        }
    }
    // Every mapping the parser opens (a top-level key it checks the keys of) has its section on the page.
    for (const auto& field : job::job_fields) {
        if (!field.section.empty()) EXPECT_TRUE(listed.count(std::string(field.section))) << field.section;
    }
}

TEST(JobFilePage, EveryRowHasATypeADefaultAndADescription)
{
    const auto rows = page_rows(job_file_page());

    ASSERT_EQ(rows.size(), std::size(job::job_fields));
    for (const auto& row : rows) {
        ASSERT_EQ(row.cells.size(), 5u) << row.cells.at(0);
        EXPECT_FALSE(row.cells[1].empty()) << row.cells[0] << ": no type";
        EXPECT_FALSE(row.cells[2].empty()) << row.cells[0] << ": no default";
        EXPECT_FALSE(row.cells[4].empty()) << row.cells[0] << ": no description";
    }
}

/**
 * What a row's key needs beside it to be read at all (issue 39's trial): the section's required
 * keys, and the keys a field applies only with.
 */
std::string needed_beside(const std::string& path)
{
    if (path.starts_with("exec.worker_")) return "argv: [true], mode: worker, ";
    if (path.starts_with("exec.")) return path == "exec.argv" ? "" : "argv: [true], ";
    if (path.starts_with("notify.")) return path == "notify.command" ? "" : "command: 'true', ";
    if (path.starts_with("data.")) return path == "data.chunk" ? "items: 4, " : "chunk: 1, ";
    return "";
}

/** A job file that sets `path` (a dotted row path) to `value`, as a user would write it. */
std::string job_setting(const std::string& path, const std::string& value)
{
    const auto dot = path.find('.');
    const auto section = dot == std::string::npos ? std::string() : path.substr(0, dot);
    const auto key = path.substr(dot == std::string::npos ? 0 : dot + 1);
    std::string text = section == "exec" ? "task: exec\n" : "task: noop\n";
    if (path == "gpu_threads" || path == "gpu_memory") {
        text += "gpu_sharing: mps\n";  // gpu_threads and gpu_memory apply only with it
    }
    if (section.empty()) return text + key + ": " + value + "\n";
    return text + section + ": {" + needed_beside(path) + key + ": " + value + "}\n";
}

TEST(JobFilePage, EveryDefaultShownAsAValueIsOneTheParserAccepts)
{
    // A default is a value a user may write, or a word in parentheses saying what absence means:
    // never a sentinel the parser refuses (max_failures' 0 was shown, and refused).
    std::size_t fed = 0;
    for (const auto& row : page_rows(job_file_page())) {
        const auto path = row.cells.at(0).substr(1, row.cells.at(0).size() - 2);
        const auto shown = row.cells.at(2);
        if (shown.starts_with("(")) continue;
        ASSERT_NE(job::find_job_field(path), nullptr) << path;
        const auto text = job_setting(path, shown == "results/&lt;name&gt;.h5" ? "results/heat.h5" : shown);
        EXPECT_EQ(job::job_file_error(text, known_tasks), "") << path << " = " << shown << " (the default shown), in:\n" << text;
        ++fed;
    }
    EXPECT_GT(fed, 20u) << "few defaults were fed back: the page's table changed shape";
}

TEST(JobFilePage, CellsKeepTheirBarsAndAngleBrackets)
{
    const auto page = job_file_page();

    // output.path's default names <name>, which a Markdown page would drop as an HTML tag.
    EXPECT_TRUE(contains(page, "| `output.path` | text | results/&lt;name&gt;.h5 |")) << page;
    EXPECT_TRUE(contains(page, "static \\| block \\| cyclic \\| dynamic")) << page;
}

}  // namespace
}  // namespace shardrun::cli

// The one table of job-file fields (runner/job/job_fields.hpp): the parser takes its keys,
// choices, minimums and defaults from it, and the job-file block of docs/job-file.md names the same keys.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "runner/job/job_fields.hpp"
#include "runner/job/job_parser.hpp"
#include "runner/job/job_sections.hpp"
#include "tests/runner/job/job_file_error.hpp"

namespace shardrun::job {
namespace {

const std::vector<std::string> known_tasks = {"exec", "noop", "heat2d"};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/** The first ```yaml block of docs/job-file.md, after its title "# The job file". */
std::string job_page_block()
{
    std::ifstream stream(SHARDRUN_JOB_FILE_PAGE);
    std::stringstream text;
    text << stream.rdbuf();
    const auto all = text.str();
    const auto section = all.find("# The job file\n");
    const auto open = all.find("```yaml\n", section);
    const auto close = all.find("\n```", open + 8);
    if (section == std::string::npos || open == std::string::npos || close == std::string::npos) return "";
    return all.substr(open + 8, close - open - 8);
}

TEST(JobFields, EveryPathIsOneRow)
{
    std::set<std::string> paths;
    for (const auto& field : job_fields) {
        EXPECT_TRUE(paths.insert(job_field_path(field)).second) << job_field_path(field);
        EXPECT_FALSE(field.doc.empty()) << job_field_path(field);
        // A section's keys sit under a row of the top level that is a mapping of them.
        if (!field.section.empty()) {
            const auto* parent = find_job_field(field.section);
            ASSERT_NE(parent, nullptr) << job_field_path(field);
            EXPECT_TRUE(parent->type == FieldType::mapping || parent->type == FieldType::special) << job_field_path(field);
        }
    }
}

TEST(JobFields, TheTopLevelKeysAreTheTopLevelRows)
{
    EXPECT_EQ(top_level_keys, job_field_names(""));
    EXPECT_EQ(job_field_names("schedule"), (std::vector<std::string>{"kind", "min_claim", "max_claim"}));
}

TEST(JobFields, TypedDefaultsMatchTheirTypeAndMinimum)
{
    for (const auto& field : job_fields) {
        const auto path = job_field_path(field);
        if (field.type == FieldType::integer) {
            if (const auto* value = std::get_if<std::int64_t>(&field.fallback)) {
                // 0 stands for "none" in the few fields whose minimum is 1 and whose absence means no limit.
                EXPECT_TRUE(*value >= field.minimum || (*value == 0 && contains(std::string(field.allowed), "absent")))
                    << path;
                // Such a 0 is no value to write (the parser refuses it): the reference says what absence means.
                if (*value < field.minimum) {
                    EXPECT_TRUE(job_field_default_text(field).starts_with("(")) << path << ": shows " << job_field_default_text(field);
                }
            }
        }
        if (field.type == FieldType::choice) {
            const auto* value = std::get_if<std::string_view>(&field.fallback);
            ASSERT_NE(value, nullptr) << path;
            const auto words = job_field_choices(path);
            EXPECT_NE(std::find(words.begin(), words.end(), std::string(*value)), words.end()) << path;
        }
        if (field.type == FieldType::duration) EXPECT_TRUE(std::holds_alternative<double>(field.fallback)) << path;
        if (field.type == FieldType::boolean) EXPECT_TRUE(std::holds_alternative<bool>(field.fallback)) << path;
    }
}

TEST(JobFields, AnEmptyJobGetsTheTablesDefaults)
{
    const auto spec = parse_job("dir/sweep-1.yaml", "task: noop\n", {}, known_tasks);

    EXPECT_EQ(spec.name, "sweep-1");  // Derived: the file's name
    EXPECT_EQ(spec.output.path, "results/sweep-1.h5");
    EXPECT_EQ(spec.output.layout, field_default<std::string_view>("output.layout"));
    EXPECT_EQ(spec.retries, field_default<int>("retries"));
    EXPECT_EQ(spec.rank_timeout_seconds, 60.0);
    EXPECT_EQ(spec.drain_timeout_seconds, 90.0);
    EXPECT_EQ(spec.fail_fast, 5);
    EXPECT_EQ(spec.schedule.kind, ScheduleKind::dynamic);
    EXPECT_EQ(spec.device, DevicePreference::automatic);
    EXPECT_EQ(spec.gpu_fault_limit, 2);
}

TEST(JobFields, ChoicesAndMinimumsInMessagesComeFromTheTable)
{
    const auto layout = job_file_error("task: noop\noutput: {layout: singel}\n", known_tasks);
    EXPECT_TRUE(contains(layout, "bad.yaml:2:18: output.layout: 'singel' is not allowed (did you mean 'single'?); "
                                 "allowed: shards, single"))
        << layout;

    const auto limit = job_file_error("task: noop\ngpu_fault_limit: 0\n", known_tasks);
    EXPECT_TRUE(contains(limit, "gpu_fault_limit: 0 is too small; it must be at least 1")) << limit;
}

TEST(JobFields, SetPathsAreCheckedAgainstTheTableWithASuggestion)
{
    const auto exec = job_file_error("task: exec\nexec: {argv: [true]}\n", known_tasks, {"exec.mdoe=worker"});
    EXPECT_TRUE(contains(exec, "--set exec.mdoe: unknown key (did you mean 'mode'?)")) << exec;

    const auto top = job_file_error("task: noop\n", known_tasks, {"gpu_sharnig=mps"});
    EXPECT_TRUE(contains(top, "--set gpu_sharnig: unknown key (did you mean 'gpu_sharing'?)")) << top;
}

TEST(JobFields, JobFilePageBlockNamesEveryRowAndNoOtherTopLevelKey)
{
    const auto block = job_page_block();
    ASSERT_FALSE(block.empty()) << "no ```yaml block after docs/job-file.md's '# The job file'";
    for (const auto& field : job_fields) {
        EXPECT_TRUE(std::regex_search(block, std::regex("(^|[^a-z_])" + std::string(field.name) + ":")))
            << job_field_path(field) << " is a field but the job-file block of docs/job-file.md does not show it";
    }
    const std::regex top_key("^([a-z_]+):");
    std::istringstream lines(block);
    for (std::string line; std::getline(lines, line);) {
        std::smatch match;
        if (std::regex_search(line, match, top_key)) {
            EXPECT_NE(find_job_field("", match[1].str()), nullptr)
                << "docs/job-file.md's job-file block shows '" << match[1] << ":', which is not a field";
        }
    }
}

}  // namespace
}  // namespace shardrun::job

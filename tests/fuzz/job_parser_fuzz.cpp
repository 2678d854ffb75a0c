// libFuzzer target: a job file's text through parse_job with the task kinds the CLI knows.
// Bad input must end in one JobFileError whose message is one line naming the file; any other
// exception, a crash, a sanitizer report or a leak is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "runner/errors.hpp"
#include "runner/job/job_parser.hpp"

namespace {

// The build's kind names (tests/fuzz/CMakeLists.txt), comma-separated: the parser checks `task:`
// against them, as the runner's table would, without linking the kinds.
std::vector<std::string> kind_names()
{
    std::vector<std::string> names;
    std::string_view list = SHARDRUN_FUZZ_KIND_NAMES;
    while (!list.empty()) {
        const auto comma = list.find(',');
        names.emplace_back(list.substr(0, comma));
        list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    }
    return names;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static const std::vector<std::string> kinds = kind_names();
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        (void)shardrun::job::parse_job("fuzz.yaml", text, {}, kinds);
    } catch (const shardrun::JobFileError& error) {
        const std::string message = error.what();
        if (message.rfind("fuzz.yaml", 0) != 0 || message.find('\n') != std::string::npos) {
            std::fprintf(stderr, "job error is not one line starting with the file name:\n%s\n", message.c_str());
            std::abort();
        }
    }
    return 0;
}

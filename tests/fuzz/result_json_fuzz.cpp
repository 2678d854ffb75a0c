// libFuzzer target: a task's $SHARDRUN_RESULT text through parse_result_json, once for each
// declaration below (each dtype, a scalar and arrays up to three dimensions) and once for all
// of them together. The answer is either one value buffer per field of exactly the declared size
// or a one-line reason; anything else, a crash, a sanitizer report or a leak is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "io/result_types.hpp"
#include "runner/process/results/result_json.hpp"

namespace {

using shardrun::io::DType;
using shardrun::io::FieldSpec;

std::vector<std::vector<FieldSpec>> declarations()
{
    const std::vector<FieldSpec> fields = {
        {"energy", DType::float64, {}, ""},     {"loss", DType::float32, {}, ""},
        {"steps", DType::int64, {}, ""},        {"count", DType::int32, {}, ""},
        {"vector", DType::float64, {3}, ""},    {"matrix", DType::int32, {2, 2}, ""},
        {"cube", DType::float32, {2, 1, 2}, ""}, {"ids", DType::int64, {4}, ""},
        {"converged", DType::boolean, {}, ""},  {"mask", DType::boolean, {2, 2}, ""},
    };
    std::vector<std::vector<FieldSpec>> all;
    for (const auto& field : fields) all.push_back({field});
    all.push_back(fields);
    return all;
}

void check(std::string_view text, const std::vector<FieldSpec>& fields)
{
    const auto result = shardrun::process::parse_result_json(text, fields);
    if (const auto* reason = std::get_if<std::string>(&result)) {
        if (reason->empty() || reason->find('\n') != std::string::npos) {
            std::fprintf(stderr, "the reason is not one line:\n%s\n", reason->c_str());
            std::abort();
        }
        return;
    }
    const auto& values = std::get<shardrun::io::TaskValues>(result);
    if (values.size() != fields.size()) std::abort();
    for (std::size_t i = 0; i < fields.size(); ++i) {
        if (values[i].size() != fields[i].bytes()) {
            std::fprintf(stderr, "field '%s': %zu bytes, declared %zu\n", fields[i].name.c_str(), values[i].size(),
                         fields[i].bytes());
            std::abort();
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static const auto all = declarations();
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    for (const auto& fields : all) check(text, fields);
    return 0;
}

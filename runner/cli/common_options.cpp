#include "runner/cli/common_options.hpp"

#include <string>

#include "runner/errors.hpp"

namespace po = boost::program_options;

namespace shardrun::cli {

void add_array_options(po::options_description& options)
{
    options.add_options()
        ("array-index", po::value<long>(), "this process's zero-based array element (overrides the scheduler)")
        ("array-count", po::value<long>(), "number of array elements (overrides the scheduler)");
}

env::ArrayOverrides read_array_options(const po::variables_map& values)
{
    env::ArrayOverrides overrides;
    if (values.count("array-index")) overrides.index = values["array-index"].as<long>();
    if (values.count("array-count")) overrides.count = values["array-count"].as<long>();
    if (overrides.index && *overrides.index < 0) {
        SHARDRUN_THROW(UsageError, "--array-index " + std::to_string(*overrides.index) + " must be 0 or more");
    }
    if (overrides.count && *overrides.count < 1) {
        SHARDRUN_THROW(UsageError, "--array-count " + std::to_string(*overrides.count) + " must be 1 or more");
    }
    return overrides;
}

}  // namespace shardrun::cli

#pragma once

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/variables_map.hpp>

#include "runner/env/scheduler.hpp"

namespace shardrun::cli {

/** --array-index / --array-count, shared by every subcommand that places tasks. */
void add_array_options(boost::program_options::options_description& options);

/** Reads the values added by add_array_options(). @throws UsageError on negative values */
env::ArrayOverrides read_array_options(const boost::program_options::variables_map& values);

}  // namespace shardrun::cli

#pragma once

#include <string>
#include <vector>

#include "base/communicator.hpp"

/**
 * @file
 * The Communicator interface lives in base/communicator.hpp, below io/ as well as collectives/
 * (io writes the single-layout file over the run's communicator, and may not include
 * collectives/). These names keep it reachable as shardrun::collectives::Communicator etc.,
 * where every backend and every runner caller has always found it.
 */
namespace shardrun::collectives {

using base::any_source;
using base::Communicator;
using base::data_type_of;
using base::DataType;
using base::keep_until_exit;
using base::PendingOperation;
using base::ReduceOp;
using base::Request;
using base::size_of;
using base::wait_all;

/** Every member's bytes, indexed by rank (lengths may differ). Collective. */
std::vector<std::string> allgather_strings(Communicator& comm, const std::string& mine);

}  // namespace shardrun::collectives

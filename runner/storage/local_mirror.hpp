#pragma once

#include <string>

#include "runner/job/remote_path.hpp"

/**
 * @file
 * Where a node keeps its copy of a remote output (README, "Results in object storage").
 */
namespace shardrun::storage {

/**
 * The node's scratch folder: $SHARDRUN_SCRATCH, else $TMPDIR, else /tmp. Node-local disk on
 * cloud machines; every rank of a node must see the same value.
 */
std::string scratch_dir();

/**
 * The local mirror of a remote output on this node: <scratch>/shardrun-remote/<16 hex digits of
 * the URL's SHA-256>/<name>. Every rank of a node computes the same path.
 */
std::string local_mirror(const RemotePath& remote);

}  // namespace shardrun::storage

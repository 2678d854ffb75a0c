#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "runner/submit/submit_files.hpp"
#include "runner/submit/submit_options.hpp"

namespace shardrun::submit {

/** Writes `body` as <files.dir>/<name> (indented JSON); returns the path. */
std::string write_json(const SubmitFiles& files, const std::string& name, const nlohmann::json& body);

/** The line (or two) saying where the results end up: the file, or the shards and the merge. */
std::string element_note(const SubmitOptions& options, const SubmitFiles& files);

/**
 * The cloud targets' line on storage: with a bucket output, that the containers share only the
 * bucket; with a local one, that the output and the job files must be on a file system the
 * containers mount at the same path (today's shared-file-system mode).
 */
std::string cloud_storage_note(const SubmitOptions& options, const SubmitFiles& files);

}  // namespace shardrun::submit

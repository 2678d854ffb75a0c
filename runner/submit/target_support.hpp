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

}  // namespace shardrun::submit

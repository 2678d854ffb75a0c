#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <string_view>

namespace shardrun::job {

/**
 * Stage 1 of reading a job (job_parser.cpp): the text to its one YAML document. Refuses, with
 * file:line:col, a syntax error, more than one document, a quoted string that is never closed
 * and a document that is not a mapping; an empty file is an empty mapping.
 */
YAML::Node parse_yaml(const std::string& file, const std::string& text);

/**
 * The first quoted scalar (key or value) of `text`'s first document whose closing quote is
 * missing; nullopt also when `text` is not YAML. yaml-cpp lets such a string run to the end of
 * the text, so `label: "b` followed by `retries: 2` would silently become one string.
 */
std::optional<YAML::Mark> unclosed_quote(std::string_view text);

}  // namespace shardrun::job

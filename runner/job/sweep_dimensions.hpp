#pragma once

#include <yaml-cpp/yaml.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runner/job/sweep.hpp"

namespace shardrun::job {

/** `name: [v0, v1, ...]` or `name: {linspace|logspace|range: [...]}`; `key` is the `name` node. */
std::shared_ptr<const SweepDimension> parse_axis(const YAML::Node& key, const YAML::Node& node,
                                                 const YamlContext& context, const std::string& path);

/** `zip: {a: [...], b: [...]}` or a list of such mappings: each mapping is one axis. */
std::vector<std::shared_ptr<const SweepDimension>> parse_zip(const YAML::Node& node, const YamlContext& context,
                                                             const std::string& path);

/** `points: [{a: 1, b: x}, ...]`: every point names the same parameters. */
std::shared_ptr<const SweepDimension> parse_points(const YAML::Node& node, const YamlContext& context,
                                                   const std::string& path);

/**
 * `points_file: file.json` (a JSON/YAML list of objects), relative to the job file's directory.
 * @param contents  when given, set to the file's contents
 */
std::shared_ptr<const SweepDimension> parse_points_file(const YAML::Node& node, const YamlContext& context,
                                                        const std::string& path, const std::string& job_dir,
                                                        std::optional<YAML::Node>* contents = nullptr);

}  // namespace shardrun::job

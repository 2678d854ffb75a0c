#pragma once

#include <yaml-cpp/yaml.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace shardrun::job {

/**
 * Turns a YAML node into the "file:line:col: field: message" of a JobFileError.
 * Values set with --set have no position in the file; they are named as "--set field".
 */
class YamlContext {
public:
    YamlContext(std::string file, std::set<std::string> overridden)
        : file_(std::move(file)), overridden_(std::move(overridden)) {}

    const std::string& file() const noexcept { return file_; }

    /** "job.yaml:3:5" for `node`, or "--set path" when `path` came from the command line. */
    std::string where(const YAML::Node& node, std::string_view path) const;
    /** The same for a node's mark, kept by an earlier stage (FieldMarks); a null mark: the node is not in the file. */
    std::string where(const YAML::Mark& mark, std::string_view path) const;

    /** Throws JobFileError("<where>: <path>: <message>"). */
    [[noreturn]] void fail(const YAML::Node& node, std::string_view path, std::string_view message) const;
    [[noreturn]] void fail(const YAML::Mark& mark, std::string_view path, std::string_view message) const;

    /**
     * Rejects keys of the mapping `node` that are not in `allowed`, suggesting the closest
     * allowed key ("did you mean 'chunk'?").
     */
    void check_keys(const YAML::Node& node, std::string_view path, const std::vector<std::string>& allowed) const;

    /** Rejects a name that cannot be an HDF5 dataset name (/params/<name>, /results/<name>). */
    void check_dataset_name(const YAML::Node& node, std::string_view path, const std::string& name) const;

private:
    std::string file_;
    std::set<std::string> overridden_;
};

/** `node`'s position in the file; a null mark for an undefined node (a key the file does not have). */
YAML::Mark mark_of(const YAML::Node& node);

/**
 * "<where>: <path>: <message>", or "--set path: <message>" when `where` is that --set: the
 * one-line form of every job file error.
 */
std::string located(std::string_view where, std::string_view path, std::string_view message);

/**
 * `text` with line breaks and other control characters escaped (\n, \r, \xHH): a key or value
 * quoted from the job file ("a\nb": 1) keeps an error message the one line it must be.
 */
std::string one_line(std::string_view text);

/** The allowed name closest to `word` by edit distance, or "" when none is close. */
std::string closest_name(std::string_view word, const std::vector<std::string>& allowed);

/**
 * The allowed value a user means by `word`: a word of another tool's first, where spelling
 * distance finds the wrong one ("gpu" is a letter from "cpu", but means cuda); else closest_name().
 */
std::string closest_choice(std::string_view word, const std::vector<std::string>& allowed);

/** `parent.child`, or `child` when parent is empty. */
std::string join_path(std::string_view parent, std::string_view child);

}  // namespace shardrun::job

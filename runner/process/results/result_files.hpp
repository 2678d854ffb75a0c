#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "io/result_types.hpp"

namespace shardrun::process {

/** Where an exec task may leave its results; every path absolute. */
struct ResultChannels {
    std::string json;  ///< $SHARDRUN_RESULT: <task_dir>/result.json
    std::string dir;   ///< $SHARDRUN_RESULT_DIR: <task_dir>, holding <field>.npy
    std::string h5;    ///< $SHARDRUN_RESULT_H5: <task_dir>/result.h5

    /** The .npy path of `field`. */
    std::string npy(const io::FieldSpec& field) const { return dir + "/" + field.name + ".npy"; }
};

/** The channels of the task folder `task_dir` (made absolute). */
ResultChannels result_channels(const std::string& task_dir);

/** The names of every result file `fields` may have in a channel folder: result.json, result.h5, <field>.npy. */
std::vector<std::string> result_file_names(const std::vector<io::FieldSpec>& fields);

/** Removes every result file `fields` may have (an earlier attempt's); the folder stays. */
void remove_result_files(const ResultChannels& channels, const std::vector<io::FieldSpec>& fields);

/** Removes `files` (what read_task_results read), each tried once. */
void remove_files(const std::vector<std::string>& files);

/**
 * Reads the declared fields from wherever the task wrote each: $SHARDRUN_RESULT_DIR/<field>.npy,
 * a dataset of $SHARDRUN_RESULT_H5, or $SHARDRUN_RESULT (JSON). A field given in two places, or
 * in none, fails the task. Each field must have its task shape (task_shapes.hpp: a short last
 * chunk's rows, a parameter dimension's value in this task), and is padded with its fill value
 * to its declared shape.
 * @param shapes  `fields` in the shapes this task must write (task_shapes())
 * @param read_files  when given, gets the paths of the files the values came from
 * @return the values, or a one-line reason
 */
std::variant<io::TaskValues, std::string> read_task_results(const ResultChannels& channels,
                                                            const std::vector<io::FieldSpec>& fields,
                                                            const std::vector<io::FieldSpec>& shapes,
                                                            std::vector<std::string>* read_files = nullptr);

}  // namespace shardrun::process

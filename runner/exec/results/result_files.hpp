#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "io/result_types.hpp"

namespace shardrun::exec {

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

/**
 * The fields with the shape one task delivers: a field with item_rows has `rows` rows (its
 * data range's end - start; a short last chunk has fewer than data.chunk), the others keep theirs.
 */
std::vector<io::FieldSpec> task_field_shapes(const std::vector<io::FieldSpec>& fields, std::optional<std::size_t> rows);

/** Pads a field with item_rows, given with a task's rows, with its fill value up to its declared rows. */
void pad_item_rows(std::vector<std::byte>& bytes, const io::FieldSpec& field);

/** Removes `files` (what read_task_results read), each tried once. */
void remove_files(const std::vector<std::string>& files);

/**
 * Reads the declared fields from wherever the task wrote each: $SHARDRUN_RESULT_DIR/<field>.npy,
 * a dataset of $SHARDRUN_RESULT_H5, or $SHARDRUN_RESULT (JSON). A field given in two places, or
 * in none, fails the task. A field with item_rows takes `rows` rows (a short last chunk) and is
 * padded with its fill value to its declared rows.
 * @param rows  rows of this task's data range (end - start); nullopt without a range
 * @param read_files  when given, gets the paths of the files the values came from
 * @return the values, or a one-line reason
 */
std::variant<io::TaskValues, std::string> read_task_results(const ResultChannels& channels,
                                                            const std::vector<io::FieldSpec>& fields,
                                                            std::optional<std::size_t> rows,
                                                            std::vector<std::string>* read_files = nullptr);

}  // namespace shardrun::exec

#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "io/result_types.hpp"

namespace shardrun::process {

/**
 * Reads the JSON object an exec task wrote to $SHARDRUN_RESULT and converts each declared
 * field to its dtype and shape (nested lists for arrays, row-major).
 * @return the values, or a one-line reason the file is unusable
 */
std::variant<io::TaskValues, std::string> read_result_json(const std::string& path,
                                                           const std::vector<io::FieldSpec>& fields,
                                                           const std::vector<bool>* given_as_files = nullptr);

/**
 * The same conversion from the file's text; read_result_json calls it after its size check.
 * @param given_as_files  fields the task wrote as .npy or HDF5 (result_files.hpp): they must not
 *                        be in the JSON too, and their entries in the answer are left empty
 * @return the values, or a one-line reason the text is unusable
 */
std::variant<io::TaskValues, std::string> parse_result_json(std::string_view text,
                                                            const std::vector<io::FieldSpec>& fields,
                                                            const std::vector<bool>* given_as_files = nullptr);

/**
 * Python's json.dumps writes NaN, Infinity and -Infinity bare, which JSON refuses: the text with
 * them quoted where a value stands (the conversion reads "NaN" as NaN), or nullopt when it has none.
 */
std::optional<std::string> quote_non_finite(std::string_view text);

}  // namespace shardrun::process

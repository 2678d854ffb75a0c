#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "io/result_types.hpp"

namespace shardrun::process {

/** The part of a .npy header shardrun checks. */
struct NpyHeader {
    std::string descr;                ///< e.g. "<f4"
    bool fortran_order = false;
    std::vector<std::size_t> shape;   ///< empty for a 0-d array
    std::size_t data_offset = 0;      ///< bytes before the array data
};

/**
 * Parses the start of a NumPy .npy file (format versions 1, 2 and 3): the magic, the
 * version, the header length and the header's Python dict literal with 'descr',
 * 'fortran_order' and 'shape'. Only a plain dtype string is accepted (no structured dtypes).
 * @param start  the file's first bytes (at least the whole header)
 * @return the header, or a one-line reason
 */
std::variant<NpyHeader, std::string> parse_npy_header(std::string_view start);

/**
 * Reads `path`, a .npy file holding `field`: little-endian, C order, exactly its dtype and
 * `shape` (a scalar field also takes shape (1,)). The file size is checked before reading,
 * so a runaway file is never loaded.
 * @param shape  the shape the task must deliver (the declared one, or a short chunk's rows)
 * @return the field's bytes, or a one-line reason naming the file
 */
std::variant<std::vector<std::byte>, std::string> read_npy_field(const std::string& path, const io::FieldSpec& field,
                                                                  const std::vector<std::size_t>& shape);

}  // namespace shardrun::process

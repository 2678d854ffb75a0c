#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardrun::io {

/** The record formats data.input reads one line per record (README "Line inputs"). */
enum class LineFormat { text, jsonl, csv };

/** "text" | "jsonl" | "csv" -> the format; nullopt for any other word. */
std::optional<LineFormat> line_format_named(std::string_view word);
std::string_view line_format_name(LineFormat format);

/**
 * Where each record of a line input starts: built once when the input is staged, stored beside
 * it as `<file>.shardrun-index`, so the record count (and a task's lines) need no scan.
 * On disk: one JSON header line ({"shardrun_line_index": 1, "format", "stamp", "records",
 * "columns"}), then records + 1 little-endian uint64 byte offsets.
 */
struct LineIndex {
    LineFormat format = LineFormat::text;
    /** Which version of the file it describes: size and modification time (local_stamp, or the object's). */
    std::string stamp;
    /** Record k is bytes [offsets[k], offsets[k + 1]) with its newline; empty when only the header was read. */
    std::vector<std::uint64_t> offsets;
    std::uint64_t records = 0;
    std::vector<std::string> columns;  ///< csv: the header's names

    /** The file's line number of record k (1-based; a CSV's header is line 1). */
    std::uint64_t line_of(std::uint64_t record) const { return record + (format == LineFormat::csv ? 2 : 1); }
};

/** "<size>:<mtime in ns>" of a local file, or "" when it cannot be read. */
std::string local_stamp(const std::string& path);

/** The index's file beside `input`. */
inline std::string line_index_path(const std::string& input) { return input + ".shardrun-index"; }

/**
 * Scans `path` once: record offsets, and each record's shape checked (jsonl: '{' first and '}'
 * last on its line, parsed fully only where it is read; csv: the header's number of fields, no
 * quoted field across lines). A final line without a
 * newline is a record; the newline ending the file starts none.
 * @throws InputError "path:line: what is wrong" for the first bad record, a blank jsonl/csv line,
 *         an empty CSV, or a file that cannot be read
 */
LineIndex build_line_index(const std::string& path, LineFormat format, const std::string& stamp);

/** The index's bytes as save_line_index writes them (also uploaded beside a bucket's input). */
std::string line_index_bytes(const LineIndex& index);

/** Writes the index to `file` (write-then-rename). @return false when it cannot be written */
bool save_line_index(const LineIndex& index, const std::string& file);

/**
 * The index in `bytes` when it describes `stamp` and `format`; nullopt when it is not an index,
 * is stale or is truncated. `header_only`: the offsets are not decoded (records still set).
 */
std::optional<LineIndex> parse_line_index(std::string_view bytes, std::string_view stamp, LineFormat format,
                                          bool header_only = false);

/** parse_line_index of the file `file`; nullopt also when it does not exist. */
std::optional<LineIndex> load_line_index(const std::string& file, std::string_view stamp, LineFormat format,
                                         bool header_only = false);

/** The index beside a local `path`, built (and saved beside it, else nowhere) when missing or stale. */
LineIndex local_line_index(const std::string& path, LineFormat format);

}  // namespace shardrun::io

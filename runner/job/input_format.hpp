#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace shardrun::job {

/**
 * The format `data.input`'s suffix names: "text" (.txt), "jsonl" (.jsonl, .ndjson), "csv"
 * (.csv), "parquet" (.parquet); nullopt for anything else (an HDF5 "file.h5:/dataset").
 */
inline std::optional<std::string> input_format_of_suffix(std::string_view input)
{
    const auto ends = [input](std::string_view suffix) {
        return input.size() > suffix.size() && input.substr(input.size() - suffix.size()) == suffix;
    };
    if (ends(".txt")) return "text";
    if (ends(".jsonl") || ends(".ndjson")) return "jsonl";
    if (ends(".csv")) return "csv";
    if (ends(".parquet")) return "parquet";
    return std::nullopt;
}

}  // namespace shardrun::job

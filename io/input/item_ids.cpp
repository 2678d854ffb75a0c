#include "io/input/item_ids.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <nlohmann/json.hpp>

#include "io/input/csv_fields.hpp"
#include "io/input/dataset_reader.hpp"

namespace shardrun::io {
namespace {

std::string whole_file(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) SHARDRUN_THROW(InputError, path + ": cannot open");
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string_view record(const std::string& bytes, const LineIndex& index, std::uint64_t k)
{
    std::string_view text(bytes.data() + index.offsets[k], index.offsets[k + 1] - index.offsets[k]);
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
    return text;
}

std::optional<std::int64_t> whole_number(std::string_view text)
{
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

/** Integers only while every id so far is one; the first text id turns the ones before it into text. */
void add_text(ItemIds& ids, std::string value)
{
    if (ids.integer) {
        ids.integer = false;
        for (const auto n : ids.ints) ids.text.push_back(std::to_string(n));
        ids.ints.clear();
    }
    ids.text.push_back(std::move(value));
}

void add(ItemIds& ids, std::int64_t value)
{
    if (ids.integer) {
        ids.ints.push_back(value);
    } else {
        ids.text.push_back(std::to_string(value));
    }
}

}  // namespace

ItemIds read_item_ids(const std::string& path, const LineIndex& index, const std::string& key)
{
    if (index.format == LineFormat::text) {
        SHARDRUN_THROW(InputError, path + ": text lines have no fields to take an id from; data.id needs jsonl or csv");
    }
    std::size_t column = 0;
    if (index.format == LineFormat::csv) {
        const auto found = std::find(index.columns.begin(), index.columns.end(), key);
        if (found == index.columns.end()) {
            std::string names;
            for (const auto& name : index.columns) names += (names.empty() ? "" : ", ") + name;
            SHARDRUN_THROW(InputError, path + ":1: no column '" + key + "'; the header names " + names);
        }
        column = static_cast<std::size_t>(found - index.columns.begin());
    }
    const auto bytes = whole_file(path);
    ItemIds ids;
    for (std::uint64_t k = 0; k < index.records; ++k) {
        const auto text = record(bytes, index, k);
        const auto where = path + ":" + std::to_string(index.line_of(k)) + ": ";
        if (index.format == LineFormat::csv) {
            auto fields = split_csv_fields(text);
            if (!fields || column >= fields->size()) SHARDRUN_THROW(InputError, where + "the record has no field '" + key + "'");
            if (const auto n = whole_number((*fields)[column])) {
                add(ids, *n);
            } else {
                add_text(ids, std::move((*fields)[column]));
            }
            continue;
        }
        const auto object = nlohmann::json::parse(text, nullptr, false);
        if (object.is_discarded()) SHARDRUN_THROW(InputError, where + "not valid JSON");
        const auto found = object.is_object() ? object.find(key) : object.end();
        if (!object.is_object() || found == object.end()) SHARDRUN_THROW(InputError, where + "the record has no key '" + key + "'");
        if (found->is_number_integer()) {
            add(ids, found->get<std::int64_t>());
        } else if (found->is_string()) {
            add_text(ids, found->get<std::string>());
        } else {
            SHARDRUN_THROW(InputError, where + "'" + key + "' is " + found->type_name() + "; an id is an integer or a string");
        }
    }
    if (const auto repeat = first_repeated_id(ids)) {
        SHARDRUN_THROW(InputError, path + ":" + std::to_string(index.line_of(repeat->second)) + ": " + key + " '" +
                                       id_text(ids, repeat->second) + "' repeats the id of line " +
                                       std::to_string(index.line_of(repeat->first)) + "; ids must be unique");
    }
    return ids;
}

}  // namespace shardrun::io

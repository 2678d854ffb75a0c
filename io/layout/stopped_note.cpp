#include "io/layout/stopped_note.hpp"

#include <fstream>

#include "io/layout/output_layout.hpp"

namespace shardrun::io {
namespace {

constexpr std::string_view suffix = ".stopped";

}  // namespace

std::filesystem::path stopped_note_path(const std::string& path, int array_index)
{
    return layout::shards_dir(path) / (layout::element_name(std::to_string(array_index)) + std::string(suffix));
}

std::map<int, std::string> stopped_notes(const std::string& path)
{
    std::map<int, std::string> notes;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(layout::shards_dir(path), error)) {
        const auto name = entry.path().filename().string();
        if (!name.ends_with(suffix)) continue;
        const long index = layout::element_index(name.substr(0, name.size() - suffix.size()));
        std::ifstream in(entry.path());
        std::string line;
        if (index >= 0 && std::getline(in, line) && !line.empty()) notes[static_cast<int>(index)] = line;
    }
    return notes;
}

}  // namespace shardrun::io

#include "runner/storage/folder_changes.hpp"

#include <sys/stat.h>

#include <filesystem>

#include "runner/storage/rclone.hpp"

namespace fs = std::filesystem;

namespace shardrun::storage {
namespace {

bool ends_with(const std::string& text, const std::string& tail)
{
    return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

void add_file(const fs::path& root, const fs::path& file, FolderState& state)
{
    const auto name = file.lexically_relative(root).string();
    if (ends_with(name, ".lock") || ends_with(name, ".tmp")) return;
    struct stat info{};
    if (lstat(file.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return;
    state[name] = FileStamp{static_cast<std::uintmax_t>(info.st_size),
                            static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec,
                            static_cast<std::uint64_t>(info.st_ino)};
}

}  // namespace

FolderState folder_state(const std::string& root, const std::vector<std::string>& entries)
{
    FolderState state;
    for (const auto& entry : entries) {
        const auto path = fs::path(root) / entry;
        std::error_code error;
        if (fs::is_directory(path, error)) {
            for (const auto& item : fs::recursive_directory_iterator(path, error)) add_file(root, item.path(), state);
        } else if (fs::exists(path, error)) {
            add_file(root, path, state);
        }
    }
    return state;
}

void publish_changes(const std::string& root, const std::string& remote_root, const FolderState& before,
                     const FolderState& after)
{
    std::vector<std::string> data, manifests, removed;
    for (const auto& [name, stamp] : after) {
        const auto old = before.find(name);
        if (old != before.end() && old->second == stamp) continue;
        (ends_with(name, "element.json") ? manifests : data).push_back(name);
    }
    for (const auto& entry : before) {
        if (after.count(entry.first) == 0) removed.push_back(entry.first);
    }
    upload_files(root, remote_root, data);
    upload_files(root, remote_root, manifests);
    delete_files(remote_root, removed);
}

}  // namespace shardrun::storage

#pragma once

#include <filesystem>
#include <map>
#include <string>

/**
 * @file
 * <path>.shards/a<index>.stopped: one line saying that array element `index` was started and
 * stopped before shardrun wrote anything of it (issue 39, a new-user trial). The cloud entrypoint
 * (scripts/aws-batch/entrypoint) writes it when the platform's SIGTERM came while the ranks were
 * starting: no manifest, no shard, so without it `merge` (AWS's merge job, another container)
 * would call the element never started. Beside the element's folder, not in it: a rerun's fetch
 * and its "already exists" check see the folder alone. An element with a manifest ignores it.
 */
namespace shardrun::io {

/** Where the note of element `array_index` is. */
std::filesystem::path stopped_note_path(const std::string& path, int array_index);

/** Every element's note, by index: its first line ("stopped (SIGTERM) on its last attempt before any task finished"). */
std::map<int, std::string> stopped_notes(const std::string& path);

}  // namespace shardrun::io

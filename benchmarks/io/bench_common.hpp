#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "io/job_output.hpp"

namespace shardrun::io::bench {

/** Seconds since an arbitrary start (steady clock). */
inline double seconds()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/** CPU seconds (user + system) used by this process so far: less disturbed by a busy machine than wall time. */
double cpu_seconds();

/** Metadata of a one-element job of `task_count` tasks. */
JobMetadata bench_metadata(std::uint64_t task_count);

/** A fresh folder under `parent` (default /tmp). */
std::string bench_dir(const char* parent = nullptr);

/** Writes `bytes` bytes to `file` in pieces of `piece` with one write() each and an fsync per piece: the anchor. */
double raw_posix_write(const std::string& file, std::size_t bytes, std::size_t piece, const void* data);

/**
 * Copies the files `sources` one after another into `file` with read() and write() in pieces
 * of `piece` bytes and an fsync per piece written (as raw_posix_write): the anchor of a copy.
 */
double raw_posix_copy(const std::vector<std::string>& sources, const std::string& file, std::size_t piece);

/** Reads `file` whole with read(): an anchor for scans. */
double raw_posix_read(const std::string& file);

}  // namespace shardrun::io::bench

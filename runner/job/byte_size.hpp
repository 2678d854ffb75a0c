#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace shardrun::job {

/**
 * A size such as `10G`, `512M`, `1.5G` or `4096`: a number followed by an optional K, M, G or T
 * (powers of 1024, as CUDA_MPS_PINNED_DEVICE_MEM_LIMIT reads them; a trailing B or iB is
 * accepted). @return bytes, or nullopt when the text is not such a size, is 0, or overflows
 */
std::optional<std::uint64_t> parse_byte_size(std::string_view text);

/** The shortest exact form with a K/M/G/T suffix ("10G", "1536M", "4096"): what MPS is given. */
std::string byte_size_text(std::uint64_t bytes);

}  // namespace shardrun::job

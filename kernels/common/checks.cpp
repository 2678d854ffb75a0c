#include "kernels/common/checks.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "kernels/common/errors.hpp"

namespace shardrun::kernels {

void require_positive(const char* field, std::int64_t value)
{
    if (value <= 0) {
        SHARDRUN_THROW(InvalidKernelArgument, field, std::string(field) + " = " + std::to_string(value) + " must be > 0");
    }
}

void require_finite(const char* field, double value, bool positive)
{
    std::ostringstream text;
    text << field << " = " << value;
    if (!std::isfinite(value)) SHARDRUN_THROW(InvalidKernelArgument, field, text.str() + " is not a finite number");
    if (positive && value <= 0) SHARDRUN_THROW(InvalidKernelArgument, field, text.str() + " must be > 0");
}

std::size_t buffer_bytes(std::initializer_list<std::int64_t> extents, std::size_t element_size)
{
    constexpr auto limit = std::numeric_limits<std::size_t>::max();
    std::size_t total = element_size;
    for (const auto extent : extents) {
        if (extent <= 0) return 0;
        const auto e = static_cast<std::size_t>(extent);
        if (total > limit / e) return limit;
        total *= e;
    }
    return total;
}

std::size_t available_host_memory()
{
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    std::size_t kib = 0;
    std::string unit;
    while (meminfo >> key >> kib >> unit) {
        if (key == "MemAvailable:") return kib * 1024;
    }
    const long pages = sysconf(_SC_AVPHYS_PAGES);
    const long page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) : 0;
}

void require_host_memory(std::size_t bytes, const std::string& what)
{
    const std::size_t available = available_host_memory();
    if (available == 0 || bytes <= available) return;  // unknown availability: let the allocator decide
    SHARDRUN_THROW(InvalidKernelArgument, "memory", what + " needs " + std::to_string(bytes) +
                                              " bytes of host memory but only " + std::to_string(available) +
                                              " bytes are available; use smaller sizes or split the data");
}

}  // namespace shardrun::kernels

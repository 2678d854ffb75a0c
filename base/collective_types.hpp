#pragma once

// @internal The element types and reductions of base::Communicator (base/communicator.hpp).
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace shardrun::base {

/** Reduction of allreduce and reduce_scatter; avg is sum / size (integer division for integers). */
enum class ReduceOp { sum, min, max, avg };

/** recv/irecv source: whichever member sends first. */
inline constexpr int any_source = -1;

/** Element types the collectives carry. */
enum class DataType { uint8, int32, uint32, int64, uint64, float32, float64 };

/** The DataType of T (compile error for other types). */
template <typename T>
constexpr DataType data_type_of() noexcept
{
    using U = std::remove_cv_t<T>;
    if constexpr (std::is_same_v<U, std::uint8_t> || std::is_same_v<U, std::byte> || std::is_same_v<U, char>) {
        return DataType::uint8;
    } else if constexpr (std::is_same_v<U, std::int32_t>) {
        return DataType::int32;
    } else if constexpr (std::is_same_v<U, std::uint32_t>) {
        return DataType::uint32;
    } else if constexpr (std::is_same_v<U, std::int64_t> || std::is_same_v<U, long long>) {
        return DataType::int64;
    } else if constexpr (std::is_same_v<U, std::uint64_t> || std::is_same_v<U, unsigned long long>) {
        return DataType::uint64;
    } else if constexpr (std::is_same_v<U, float>) {
        return DataType::float32;
    } else {
        static_assert(std::is_same_v<U, double>, "collectives carry uint8/int32/uint32/int64/uint64/float/double");
        return DataType::float64;
    }
}

/** Bytes of one element of `type`. */
constexpr std::size_t size_of(DataType type) noexcept
{
    switch (type) {
    case DataType::uint8: return 1;
    case DataType::int32:
    case DataType::uint32:
    case DataType::float32: return 4;
    case DataType::int64:
    case DataType::uint64:
    case DataType::float64: return 8;
    }
    return 1;
}

}  // namespace shardrun::base

#pragma once

// @internal Loading one table of entry points from the CUDA backend library
// (libshardrun_cuda.so) with dlopen. kernels/ and collectives/ each reach the library through
// their own table and may not include each other, so the search, the dlopen and the checks
// they share live here, header-only and dependent on nothing of shardrun's.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace shardrun::backend {

inline constexpr const char* library_name = "libshardrun_cuda.so";

/**
 * Where the library is: SHARDRUN_CUDA_BACKEND alone when set (tests point it elsewhere);
 * otherwise the first that exists of next to the executable (the build tree), the install
 * prefix's library folder beside bin/ (`install_relative`, relative to the executable's
 * folder), and `build_path` (tests and tools that live in subfolders of the build). When none
 * exists, the one next to the executable, so that dlopen's error names it.
 */
inline std::string library_path(const char* build_path, const char* install_relative)
{
    if (const char* chosen = std::getenv("SHARDRUN_CUDA_BACKEND"); chosen != nullptr && *chosen != '\0') return chosen;
    std::vector<std::string> paths;
    std::string exe(4096, '\0');
    if (const auto n = ::readlink("/proc/self/exe", exe.data(), exe.size()); n > 0) {
        exe.resize(static_cast<std::size_t>(n));
        const auto dir = exe.substr(0, exe.rfind('/'));
        paths.push_back(dir + "/" + library_name);
        paths.push_back(dir + "/" + install_relative + "/" + library_name);
    }
    paths.emplace_back(build_path);
    for (const auto& path : paths) {
        if (::access(path.c_str(), F_OK) == 0) return path;
    }
    return paths.front();
}

template <class Table>
struct Loaded {
    const Table* table = nullptr;
    std::string error;  ///< one line saying why table is nullptr
};

/**
 * Loads the library at `path` and asks its getter `symbol` (`const Table* (std::uint32_t)`)
 * for the table of version `abi_version`, whose size must be sizeof(Table): the library and
 * the binary come from one build of one tree. `label` names the table in the error ("kernel").
 */
template <class Table>
Loaded<Table> load_table(const std::string& path, const char* symbol, std::uint32_t abi_version, const char* label)
{
    // RTLD_LOCAL: the backend's copies of shared code never interpose on the binary's. Both
    // layers' loads return the same handle.
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) return {nullptr, ::dlerror()};
    using Getter = const Table* (*)(std::uint32_t);
    const auto getter = reinterpret_cast<Getter>(::dlsym(handle, symbol));
    if (getter == nullptr) return {nullptr, path + ": no " + symbol + " (not a shardrun CUDA backend)"};
    const Table* table = getter(abi_version);
    if (table == nullptr || table->size != sizeof(Table)) {
        return {nullptr, path + " is from another shardrun build (" + label + " table version " +
                             std::to_string(abi_version) + " expected); rebuild or reinstall both"};
    }
    return {table, ""};
}

}  // namespace shardrun::backend

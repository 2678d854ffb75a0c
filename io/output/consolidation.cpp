// Results stored once: the shards of an element consolidated into a complete master.
#include "io/output/consolidation.hpp"

#include <signal.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "io/layout/output_layout.hpp"

namespace fs = std::filesystem;

namespace shardrun::io {
namespace {

/** SHARDRUN_TEST_KILL_DROP_AFTER, or -1 when unset (production). */
long kill_after()
{
    const char* text = std::getenv("SHARDRUN_TEST_KILL_DROP_AFTER");
    return text && *text ? std::strtol(text, nullptr, 10) : -1;
}

class Remover {
public:
    explicit Remover(const std::string& path) : path_(path), kill_after_(kill_after()) {}

    void remove(const fs::path& file)
    {
        if (kill_after_ >= 0 && removed_ >= kill_after_) ::raise(SIGKILL);
        std::error_code error;
        fs::remove(file, error);
        if (error) {
            std::cerr << "shardrun: warning: cannot remove " << file.string() << " (" << error.message() << "); "
                      << path_ << " holds its results, remove it by hand\n";
        }
        ++removed_;
    }

    void remove_folder(const fs::path& dir)
    {
        std::error_code error;
        fs::remove_all(dir, error);  // torn temporaries and segments set aside as .invalid
        if (error) std::cerr << "shardrun: warning: cannot remove " << dir.string() << " (" << error.message() << ")\n";
    }

private:
    std::string path_;
    long kill_after_;
    long removed_ = 0;
};

}  // namespace

bool element_rows_dropped(const std::string& path, int array_index)
{
    for (const int rank : layout::rank_indexes(path, array_index)) {
        if (!layout::segments(layout::rank_dir(path, array_index, rank)).empty()) return false;
    }
    return !fs::exists(layout::single_path(path, array_index));
}

void drop_element_rows(const std::string& path, int array_index)
{
    Remover remover(path);
    for (const int rank : layout::rank_indexes(path, array_index)) {
        const auto dir = layout::rank_dir(path, array_index, rank);
        for (const auto& segment : layout::segments(dir)) remover.remove(segment);
        remover.remove_folder(dir);
    }
    const auto single = layout::single_path(path, array_index);
    if (fs::exists(single)) remover.remove(single);
    const auto params = layout::params_path(path, array_index);
    if (fs::exists(params)) remover.remove(params);
    layout::sync_path(layout::element_dir(path, array_index));
}

}  // namespace shardrun::io

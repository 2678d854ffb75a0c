#pragma once

// The one temp-folder helper of the C++ tests: a fresh folder under $TMPDIR, removed with
// everything in it when the test is done.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace shardrun::testing {

/** Makes <temp>/<prefix>XXXXXX (mkdtemp) and returns its path. @throws std::runtime_error */
inline std::string make_temp_dir(const std::string& prefix = "shardrun_test_")
{
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + pattern);
    return pattern;
}

/** A fresh folder, removed with everything in it at the end of its scope. */
class TempDir {
public:
    explicit TempDir(const std::string& prefix = "shardrun_test_") : path_(make_temp_dir(prefix)) {}
    ~TempDir()
    {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    std::string path() const { return path_; }
    std::string file(const std::string& name) const { return path_ + "/" + name; }

    void write(const std::string& name, const std::string& text) const { std::ofstream(file(name)) << text; }
    std::string read(const std::string& name) const
    {
        std::ifstream stream(file(name));
        std::stringstream text;
        text << stream.rdbuf();
        return text.str();
    }

private:
    std::string path_;
};

}  // namespace shardrun::testing

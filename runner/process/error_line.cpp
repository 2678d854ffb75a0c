#include "runner/process/error_line.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>

namespace shardrun::process {
namespace {

std::string clipped(std::string line)
{
    for (auto& c : line) {
        if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line.size() > 160 ? line.substr(0, 157) + "..." : line;
}

bool names_error(std::string line)
{
    std::transform(line.begin(), line.end(), line.begin(), [](unsigned char c) { return std::tolower(c); });
    // A traceback's header names no error; its last line does.
    if (line.rfind("traceback", 0) == 0) return false;
    return line.find("error") != std::string::npos || line.find("exception") != std::string::npos ||
           line.find("what():") != std::string::npos || line.find("fatal") != std::string::npos;
}

}  // namespace

std::string first_error_line(const std::string& path)
{
    std::ifstream in(path);
    std::string last;
    std::size_t read = 0;
    bool in_traceback = false;
    for (std::string line; read < (1u << 20) && std::getline(in, line);) {
        read += line.size() + 1;
        // A Python traceback's frames and source lines are indented; the exception ("RuntimeError:
        // member 1 failed") is the first line that is not. A source line such as
        // `raise RuntimeError(f"...")` names an error too, but is not the message (issue 35, point 9).
        if (line.rfind("Traceback (most recent call last)", 0) == 0) {
            in_traceback = true;
            continue;
        }
        if (in_traceback) {
            if (line.empty() || std::isspace(static_cast<unsigned char>(line.front()))) continue;
            return clipped(line);
        }
        if (names_error(line)) return clipped(line);
        if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
    }
    return clipped(last);
}

}  // namespace shardrun::process

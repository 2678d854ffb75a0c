// The record offsets of a line input (text, JSON Lines, CSV): one scan, checked as it goes.
#include "io/input/line_index.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>  // the index header

#include "io/input/csv_fields.hpp"
#include "io/input/dataset_reader.hpp"

namespace shardrun::io {
namespace {

constexpr int index_version = 1;

/** The file mapped read-only (a file of 0 bytes maps nothing). */
class MappedFile {
public:
    explicit MappedFile(const std::string& path)
    {
        const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) SHARDRUN_THROW(InputError, path + ": cannot open (" + std::strerror(errno) + ")");
        struct stat info {};
        fstat(fd, &info);
        size_ = static_cast<std::size_t>(info.st_size);
        if (size_ > 0) {
            // MAP_POPULATE: the page tables filled in one go, not a fault per 4 KiB page as the scan goes.
            data_ = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
            if (data_ == MAP_FAILED) {
                close(fd);
                SHARDRUN_THROW(InputError, path + ": cannot read (" + std::strerror(errno) + ")");
            }
            madvise(data_, size_, MADV_SEQUENTIAL);
        }
        close(fd);
    }
    ~MappedFile()
    {
        if (size_ > 0) munmap(data_, size_);
    }
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    const char* data() const { return static_cast<const char*>(data_); }
    std::size_t size() const { return size_; }

private:
    void* data_ = nullptr;
    std::size_t size_ = 0;
};

[[noreturn]] void bad_line(const std::string& path, std::uint64_t line, const std::string& what)
{
    SHARDRUN_THROW(InputError, path + ":" + std::to_string(line) + ": " + what);
}

/** The line without its "\r\n" or "\n". */
std::string_view trimmed(const char* begin, const char* end)
{
    if (end > begin && end[-1] == '\n') --end;
    if (end > begin && end[-1] == '\r') --end;
    return {begin, static_cast<std::size_t>(end - begin)};
}

/**
 * A JSON Lines record's shape: one object on the line, '{' first and '}' last (spaces aside). A full
 * parse here ran at about 1/100 of `wc -l`'s speed (benchmarks/run line_input); the record is parsed
 * where it is read (data.id's ids, the Python helper's records()), which names the same file:line.
 */
void check_json_record(const std::string& path, std::uint64_t line, std::string_view text)
{
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string_view::npos) bad_line(path, line, "a blank line; JSON Lines hold one JSON object per line");
    const auto last = text.find_last_not_of(" \t");
    if (text[first] != '{' || text[last] != '}') {
        bad_line(path, line, "not valid JSON (a JSON Lines record is one JSON object, '{' to '}', on one line)");
    }
}

void check_csv_record(const std::string& path, std::uint64_t line, std::string_view text, std::size_t columns)
{
    const auto fields = count_csv_fields(text);
    if (!fields) bad_line(path, line, "a quoted field is not closed on its line; each CSV record must be one line");
    if (text.empty()) bad_line(path, line, "a blank line; each CSV record is one line of the header's fields");
    if (*fields != columns) {
        bad_line(path, line, std::to_string(*fields) + " fields where the header has " + std::to_string(columns) +
                                 "; every record needs the header's fields");
    }
}

}  // namespace

std::optional<LineFormat> line_format_named(std::string_view word)
{
    if (word == "text") return LineFormat::text;
    if (word == "jsonl") return LineFormat::jsonl;
    if (word == "csv") return LineFormat::csv;
    return std::nullopt;
}

std::string_view line_format_name(LineFormat format)
{
    switch (format) {
        case LineFormat::text: return "text";
        case LineFormat::jsonl: return "jsonl";
        case LineFormat::csv: return "csv";
    }
    return "text";
}

std::string local_stamp(const std::string& path)
{
    struct stat info {};
    if (stat(path.c_str(), &info) != 0) return "";
    return std::to_string(info.st_size) + ":" +
           std::to_string(static_cast<long long>(info.st_mtim.tv_sec) * 1000000000LL + info.st_mtim.tv_nsec);
}

LineIndex build_line_index(const std::string& path, LineFormat format, const std::string& stamp)
{
    const MappedFile file(path);
    LineIndex index;
    index.format = format;
    index.stamp = stamp;
    const char* const begin = file.data();
    const char* const end = begin + file.size();
    const char* at = begin;
    std::uint64_t line = 1;
    if (format == LineFormat::csv) {
        if (at == end) SHARDRUN_THROW(InputError, path + ":1: an empty CSV file; the first line must name the columns");
        const char* newline = static_cast<const char*>(std::memchr(at, '\n', static_cast<std::size_t>(end - at)));
        const char* stop = newline ? newline + 1 : end;
        const auto header = trimmed(at, stop);
        const auto fields = split_csv_fields(header);
        if (!fields || header.empty()) bad_line(path, 1, "the first line must name the columns (a CSV header)");
        index.columns = *fields;
        at = stop;
        ++line;
    }
    index.offsets.reserve(file.size() / 64 + 2);
    while (at < end) {
        const char* newline = static_cast<const char*>(std::memchr(at, '\n', static_cast<std::size_t>(end - at)));
        const char* stop = newline ? newline + 1 : end;
        index.offsets.push_back(static_cast<std::uint64_t>(at - begin));
        if (format == LineFormat::jsonl) check_json_record(path, line, trimmed(at, stop));
        if (format == LineFormat::csv) check_csv_record(path, line, trimmed(at, stop), index.columns.size());
        at = stop;
        ++line;
    }
    index.offsets.push_back(static_cast<std::uint64_t>(end - begin));
    index.records = index.offsets.size() - 1;
    return index;
}

std::string line_index_bytes(const LineIndex& index)
{
    const nlohmann::json header{{"shardrun_line_index", index_version}, {"format", line_format_name(index.format)},
                                {"stamp", index.stamp}, {"records", index.records}, {"columns", index.columns}};
    std::string bytes = header.dump() + "\n";
    const auto at = bytes.size();
    bytes.resize(at + index.offsets.size() * sizeof(std::uint64_t));
    // Little-endian on every machine shardrun builds for (x86-64, aarch64).
    std::memcpy(bytes.data() + at, index.offsets.data(), index.offsets.size() * sizeof(std::uint64_t));
    return bytes;
}

bool save_line_index(const LineIndex& index, const std::string& file)
{
    const auto temp = file + ".tmp" + std::to_string(getpid());
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        if (!out) return false;
        // The offsets straight from memory (they are most of the index): no copy into one string first.
        const auto header = line_index_bytes(LineIndex{index.format, index.stamp, {}, index.records, index.columns});
        out.write(header.data(), static_cast<std::streamsize>(header.size()));
        out.write(reinterpret_cast<const char*>(index.offsets.data()),
                  static_cast<std::streamsize>(index.offsets.size() * sizeof(std::uint64_t)));
        if (!out.flush()) {
            std::remove(temp.c_str());
            return false;
        }
    }
    if (std::rename(temp.c_str(), file.c_str()) != 0) {
        std::remove(temp.c_str());
        return false;
    }
    return true;
}

std::optional<LineIndex> parse_line_index(std::string_view bytes, std::string_view stamp, LineFormat format,
                                          bool header_only)
{
    const auto newline = bytes.find('\n');
    if (newline == std::string_view::npos) return std::nullopt;
    const auto header = nlohmann::json::parse(bytes.substr(0, newline), nullptr, false);
    if (!header.is_object() || header.value("shardrun_line_index", 0) != index_version) return std::nullopt;
    if (header.value("stamp", std::string()) != stamp || header.value("format", std::string()) != line_format_name(format)) {
        return std::nullopt;
    }
    LineIndex index;
    index.format = format;
    index.stamp = std::string(stamp);
    index.records = header.value("records", std::uint64_t{0});
    index.columns = header.value("columns", std::vector<std::string>());
    if (header_only) return index;
    const auto body = bytes.substr(newline + 1);
    if (body.size() != (index.records + 1) * sizeof(std::uint64_t)) return std::nullopt;
    index.offsets.resize(index.records + 1);
    std::memcpy(index.offsets.data(), body.data(), body.size());
    return index;
}

std::optional<LineIndex> load_line_index(const std::string& file, std::string_view stamp, LineFormat format,
                                         bool header_only)
{
    std::ifstream in(file, std::ios::binary);
    if (!in) return std::nullopt;
    std::string bytes;
    if (header_only) {
        std::getline(in, bytes);
        bytes += "\n";
    } else {
        bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    return parse_line_index(bytes, stamp, format, header_only);
}

LineIndex local_line_index(const std::string& path, LineFormat format)
{
    const auto stamp = local_stamp(path);
    if (stamp.empty()) SHARDRUN_THROW(InputError, path + ": no such file");
    const auto beside = line_index_path(path);
    if (auto index = load_line_index(beside, stamp, format)) return std::move(*index);
    auto index = build_line_index(path, format, stamp);
    save_line_index(index, beside);  // a read-only folder: built again next time, nothing else lost
    return index;
}

}  // namespace shardrun::io

#include "runner/process/results/result_npy.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>

namespace shardrun::process {
namespace {

// NumPy writes headers of at most a few hundred bytes (it refuses to read above 10000 by
// default): anything far larger is not a result, so it is never read into memory.
constexpr std::size_t max_header_bytes = 64 * 1024;
constexpr std::string_view magic = "\x93NUMPY";

struct BadHeader : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/**
 * The header is a Python dict literal ({'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), })
 * written by numpy's repr; this reads the subset numpy writes for a plain dtype: quoted
 * strings, True/False and tuples of integers. Anything else is refused, never guessed.
 */
class DictReader {
public:
    explicit DictReader(std::string_view text) : text_(text) {}

    NpyHeader read()
    {
        NpyHeader header;
        bool descr = false, order = false, shape = false;
        expect('{');
        while (!take('}')) {
            const auto key = string();
            expect(':');
            if (key == "descr") {
                if (peek() != '\'' && peek() != '"') throw BadHeader("only a plain dtype is allowed ('descr' is not a string)");
                header.descr = string();
                descr = true;
            } else if (key == "fortran_order") {
                header.fortran_order = boolean();
                order = true;
            } else if (key == "shape") {
                header.shape = tuple();
                shape = true;
            } else {
                throw BadHeader(fmt::format("unknown header key '{}'", key));
            }
            if (!take(',')) {
                expect('}');
                break;
            }
        }
        if (!descr || !order || !shape) throw BadHeader("the header lacks 'descr', 'fortran_order' or 'shape'");
        skip_space();
        if (pos_ != text_.size()) throw BadHeader("text after the header's closing brace");
        return header;
    }

private:
    void skip_space()
    {
        while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    }
    char peek()
    {
        skip_space();
        return pos_ < text_.size() ? text_[pos_] : '\0';
    }
    bool take(char c)
    {
        if (peek() != c) return false;
        ++pos_;
        return true;
    }
    void expect(char c)
    {
        if (!take(c)) throw BadHeader(fmt::format("expected '{}' at header byte {}", c, pos_));
    }
    std::string string()
    {
        const char quote = peek();
        if (quote != '\'' && quote != '"') throw BadHeader(fmt::format("expected a quoted key at header byte {}", pos_));
        const auto end = text_.find(quote, ++pos_);
        if (end == std::string_view::npos) throw BadHeader("an unterminated string");
        std::string value(text_.substr(pos_, end - pos_));
        pos_ = end + 1;
        return value;
    }
    bool boolean()
    {
        skip_space();
        for (const auto& [word, value] : {std::pair{std::string_view("True"), true}, std::pair{std::string_view("False"), false}}) {
            if (text_.substr(pos_, word.size()) == word) {
                pos_ += word.size();
                return value;
            }
        }
        throw BadHeader("'fortran_order' must be True or False");
    }
    std::vector<std::size_t> tuple()
    {
        std::vector<std::size_t> dims;
        expect('(');
        while (!take(')')) {
            skip_space();
            std::uint64_t value = 0;
            std::size_t digits = 0;
            for (; pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])); ++pos_, ++digits) {
                if (__builtin_mul_overflow(value, 10u, &value) ||
                    __builtin_add_overflow(value, static_cast<unsigned>(text_[pos_] - '0'), &value)) {
                    throw BadHeader("a shape extent is too large");
                }
            }
            if (digits == 0) throw BadHeader("'shape' must be a tuple of non-negative integers");
            take('L');  // Python 2's long suffix, which old files carry
            dims.push_back(static_cast<std::size_t>(value));
            if (!take(',')) {
                expect(')');
                break;
            }
        }
        return dims;
    }

    std::string_view text_;
    std::size_t pos_ = 0;
};

std::string shape_text(const std::vector<std::size_t>& shape)
{
    if (shape.size() == 1) return fmt::format("({},)", shape[0]);
    return fmt::format("({})", fmt::join(shape, ", "));
}

/** The .npy descr of `dtype` on little-endian storage. */
std::string_view descr_of(io::DType dtype)
{
    switch (dtype) {
    case io::DType::float32: return "<f4";
    case io::DType::float64: return "<f8";
    case io::DType::int32: return "<i4";
    case io::DType::int64: return "<i8";
    case io::DType::boolean: return "|b1";  // numpy's bool: one byte, 0 or 1
    }
    return "";
}

std::optional<std::string> check_header(const NpyHeader& header, const io::FieldSpec& field,
                                        const std::vector<std::size_t>& shape)
{
    const auto want = descr_of(field.dtype);
    if (header.descr != want) {
        const bool swapped = header.descr.size() == want.size() && header.descr[0] == '>' &&
                             header.descr.substr(1) == want.substr(1);
        if (swapped) return fmt::format("is big-endian ('{}'); write little-endian, e.g. arr.astype('{}')", header.descr, want);
        return fmt::format("has dtype '{}', the field is declared {} ('{}')", header.descr, io::dtype_name(field.dtype), want);
    }
    if (header.fortran_order && header.shape.size() > 1) {
        return std::string("is in Fortran order; write C order, e.g. np.ascontiguousarray(arr)");
    }
    const bool scalar_as_one = shape.empty() && header.shape == std::vector<std::size_t>{1};
    if (header.shape != shape && !scalar_as_one) {
        return fmt::format("has shape {}, the task must write {}", shape_text(header.shape), shape_text(shape));
    }
    return std::nullopt;
}

}  // namespace

std::variant<NpyHeader, std::string> parse_npy_header(std::string_view start)
{
    if (start.size() < 10 || start.substr(0, magic.size()) != magic) return std::string("is not a .npy file (no \\x93NUMPY magic)");
    const auto major = static_cast<unsigned char>(start[6]);
    if (major < 1 || major > 3) return fmt::format("has .npy format version {}; allowed: 1, 2, 3", major);
    const auto byte = [&start](std::size_t i) { return static_cast<std::size_t>(static_cast<unsigned char>(start[i])); };
    std::size_t length = 0, offset = 0;
    if (major == 1) {
        length = byte(8) | byte(9) << 8;
        offset = 10;
    } else {
        if (start.size() < 12) return std::string("is cut off inside its header");
        length = byte(8) | byte(9) << 8 | byte(10) << 16 | byte(11) << 24;
        offset = 12;
    }
    if (length > max_header_bytes) return fmt::format("has a {}-byte header; at most {} is allowed", length, max_header_bytes);
    if (start.size() < offset + length) return std::string("is cut off inside its header");
    try {
        auto header = DictReader(start.substr(offset, length)).read();
        header.data_offset = offset + length;
        return header;
    } catch (const BadHeader& error) {
        return fmt::format("has an unreadable header: {}", error.what());
    }
}

std::variant<std::vector<std::byte>, std::string> read_npy_field(const std::string& path, const io::FieldSpec& field,
                                                                  const std::vector<std::size_t>& shape)
{
    const auto fail = [&](const std::string& why) {
        return fmt::format("results field '{}': {} {}", field.name, std::filesystem::path(path).filename().string(), why);
    };
    std::ifstream stream(path, std::ios::binary);
    std::error_code error;
    const auto size = std::filesystem::file_size(path, error);
    if (!stream || error || !std::filesystem::is_regular_file(path, error)) return fail("cannot be read as a regular file");
    std::string start(static_cast<std::size_t>(std::min<std::uintmax_t>(size, 12 + max_header_bytes)), '\0');
    stream.read(start.data(), static_cast<std::streamsize>(start.size()));
    auto parsed = parse_npy_header(start);
    if (auto* reason = std::get_if<std::string>(&parsed)) return fail(*reason);
    const auto& header = std::get<NpyHeader>(parsed);
    if (auto reason = check_header(header, field, shape)) return fail(*reason);
    std::size_t bytes = io::dtype_size(field.dtype);
    for (const auto extent : shape) bytes *= extent;
    if (size != header.data_offset + bytes) {
        return fail(fmt::format("holds {} bytes of data, its shape needs {}", size - std::min<std::uintmax_t>(size, header.data_offset), bytes));
    }
    std::vector<std::byte> data(bytes);
    stream.clear();
    stream.seekg(static_cast<std::streamoff>(header.data_offset));
    stream.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(bytes));
    if (!stream) return fail("could not be read to its end");
    if (field.dtype == io::DType::boolean && !io::holds_only_bools(data)) return fail("holds a bool byte other than 0 or 1");
    return data;
}

}  // namespace shardrun::process

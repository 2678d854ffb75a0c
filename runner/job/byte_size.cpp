#include "runner/job/byte_size.hpp"

#include <cctype>
#include <cmath>
#include <string>

namespace shardrun::job {

std::optional<std::uint64_t> parse_byte_size(std::string_view text)
{
    size_t digits = 0;
    while (digits < text.size() && (std::isdigit(static_cast<unsigned char>(text[digits])) || text[digits] == '.')) ++digits;
    if (digits == 0 || text.substr(0, digits).find('.') != text.substr(0, digits).rfind('.')) return std::nullopt;
    auto suffix = std::string(text.substr(digits));
    for (auto& c : suffix) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    int power = 0;
    if (!suffix.empty()) {
        const auto units = std::string_view("KMGT");
        const auto at = units.find(suffix[0]);
        const auto rest = at == std::string_view::npos ? std::string_view(suffix) : std::string_view(suffix).substr(1);
        if (rest != "" && rest != "B" && rest != "IB") return std::nullopt;
        if (at == std::string_view::npos && rest != "B") return std::nullopt;
        power = at == std::string_view::npos ? 0 : static_cast<int>(at) + 1;
    }
    const double number = std::stod(std::string(text.substr(0, digits)));
    const double bytes = std::floor(number * std::pow(1024.0, power));
    if (!(bytes >= 1) || bytes >= 1.8e19) return std::nullopt;
    return static_cast<std::uint64_t>(bytes);
}

std::string byte_size_text(std::uint64_t bytes)
{
    const char* units = "KMGT";
    int power = 0;
    while (power < 4 && bytes != 0 && bytes % 1024 == 0) {
        bytes /= 1024;
        ++power;
    }
    return std::to_string(bytes) + (power == 0 ? "" : std::string(1, units[power - 1]));
}

}  // namespace shardrun::job

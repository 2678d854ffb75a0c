// The job file's text to one YAML document, in one scan of the parser's events.
#include "runner/job/yaml_text.hpp"

#include <fmt/format.h>

#include <optional>
#include <sstream>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include "runner/errors.hpp"
#include "runner/job/yaml_context.hpp"

namespace shardrun::job {
namespace {

/** The 0-based line, `line` or the one before, whose indentation holds a tab; none when neither. */
std::optional<int> tab_line(const std::string& text, int line)
{
    std::istringstream lines(text);
    std::string row;
    for (int current = 0; std::getline(lines, row); ++current) {
        if (current < line - 1) continue;
        if (current > line) break;
        const auto indent = row.find_first_not_of(" \t");
        if (row.substr(0, indent).find('\t') != std::string::npos) return current;
    }
    return std::nullopt;
}

// Scans from the opening quote at `pos` as YAML does: \x escapes in "...", '' in '...'.
bool quote_closes(std::string_view text, std::size_t pos)
{
    const char quote = text[pos];
    for (std::size_t i = pos + 1; i < text.size(); ++i) {
        if (quote == '"' && text[i] == '\\') {
            ++i;
        } else if (text[i] == quote) {
            if (quote == '\'' && i + 1 < text.size() && text[i + 1] == '\'') {
                ++i;
            } else {
                return true;
            }
        }
    }
    return false;
}

// Counts the documents, notes where the second starts, and finds the first scalar whose quote
// never closes. Not YAML::LoadAll: yaml-cpp 0.7 yields empty documents forever after some
// malformed input (a stray ',' after a top-level flow mapping), so LoadAll never returns (found
// by tests/fuzz).
class TextScan final : public YAML::EventHandler {
public:
    explicit TextScan(std::string_view text)
    {
        // yaml-cpp counts positions after a UTF-8 byte order mark.
        constexpr std::string_view bom = "\xEF\xBB\xBF";
        text_ = text.starts_with(bom) ? text.substr(bom.size()) : text;
    }

    int documents = 0;
    YAML::Mark second = YAML::Mark::null_mark();
    std::optional<YAML::Mark> unclosed;

    void OnDocumentStart(const YAML::Mark& mark) override
    {
        if (++documents == 2) second = mark;
    }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string&) override
    {
        if (unclosed || documents > 1 || mark.is_null() || mark.pos < 0) return;
        const auto pos = static_cast<std::size_t>(mark.pos);
        if (pos < text_.size() && (text_[pos] == '"' || text_[pos] == '\'') && !quote_closes(text_, pos)) unclosed = mark;
    }
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}

private:
    std::string_view text_;
};

}  // namespace

std::optional<YAML::Mark> unclosed_quote(std::string_view text)
{
    TextScan scan(text);
    try {
        std::istringstream stream{std::string(text)};
        YAML::Parser parser(stream);
        parser.HandleNextDocument(scan);
    } catch (const YAML::Exception&) {
        return std::nullopt;
    }
    return scan.unclosed;
}

YAML::Node parse_yaml(const std::string& file, const std::string& text)
{
    try {
        constexpr int cap = 16;
        TextScan scan(text);
        std::istringstream stream(text);
        YAML::Parser parser(stream);
        while (scan.documents < cap && parser.HandleNextDocument(scan)) {
        }
        if (scan.documents > 1) {
            // Point at the `---` that starts the second document, the line to delete.
            int line = scan.second.line, current = 0;
            std::istringstream lines(text);
            for (std::string row; std::getline(lines, row) && current < scan.second.line; ++current) {
                if (row.rfind("---", 0) == 0) line = current;
            }
            SHARDRUN_THROW(JobFileError, fmt::format("{}:{}:1: the job file holds {}{} YAML documents (separated by ---); keep one",
                                                     file, line + 1, scan.documents, scan.documents == cap ? " or more" : ""));
        }
        auto root = scan.documents == 0 ? YAML::Node() : YAML::Load(text);
        if (const auto open = scan.unclosed) {
            SHARDRUN_THROW(JobFileError, fmt::format("{}:{}:{}: YAML syntax error: this quoted string is never closed, so it runs "
                                                     "to the end of the file; add its closing quote",
                                                     file, open->line + 1, open->column + 1));
        }
        if (!root.IsDefined() || root.IsNull()) return YAML::Node(YAML::NodeType::Map);
        if (!root.IsMap()) SHARDRUN_THROW(JobFileError, fmt::format("{}:1:1: the job file must be a YAML mapping", file));
        return root;
    } catch (const YAML::ParserException& error) {
        // yaml-cpp's words for a tab in the indentation ("illegal map value") do not say tab.
        const auto tab = tab_line(text, error.mark.line);
        SHARDRUN_THROW(JobFileError, fmt::format("{}:{}:{}: YAML syntax error: {}{}", file, tab.value_or(error.mark.line) + 1,
                                                 tab ? 1 : error.mark.column + 1, one_line(error.msg),
                                                 tab ? "; this line is indented with a tab: YAML indents with spaces only"
                                                     : ""));
    }
}

}  // namespace shardrun::job

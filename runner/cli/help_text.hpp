#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace shardrun::cli {

/**
 * A command's description (CommandDoc) as a terminal and help2man show it: plain text wrapped
 * to a width, written from the same Markdown the reference page shows as it is.
 */

/** The paragraphs of `text`: the parts between blank lines, each without its line breaks. */
std::vector<std::string> paragraphs(std::string_view text);

/** `markdown` without its only markup, the backticks around code. */
std::string plain_text(std::string_view markdown);

/**
 * One paragraph wrapped to lines of at most `width` characters (a longer word stands alone): the
 * first indented by `first_indent` spaces, the others by `indent`. A word that starts with '-'
 * stays on the line of the word before it, so that no line begins like an option ("--resume"),
 * which help2man and a reader would take for one.
 */
std::string wrapped(std::string_view paragraph, std::size_t width, std::size_t first_indent, std::size_t indent);

}  // namespace shardrun::cli

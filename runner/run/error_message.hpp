#pragma once

#include <exception>
#include <string>

namespace shardrun::run {

/**
 * The docs page and anchor that explain `error` ("docs/troubleshooting.md#disk-full"): the
 * pointer its throw site gave it (SHARDRUN_THROW_DOCUMENTED), else its class's (a full disk,
 * a stalled collective, a bucket transfer), else nullptr: a one-line error that says it all.
 */
const char* docs_of(const std::exception& error) noexcept;

/**
 * The line users read for `error`: what() and, when docs_of() has a pointer, " (see <page>#<anchor>)"
 * on the same line, so a bad-input error stays one line and keeps its file:line:col first.
 */
std::string user_message(const std::exception& error);

}  // namespace shardrun::run

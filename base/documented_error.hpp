#pragma once

#include <utility>

#include "base/error.hpp"

namespace shardrun {

/**
 * What an error that needs more than one line of explanation adds: the docs page and anchor
 * that explain it, e.g. "docs/troubleshooting.md#output-exists". The runner's error printer
 * (runner/run/error_message.hpp) appends it to the line users read; what() stays the message
 * as thrown.
 */
class ErrorDocs {
public:
    virtual ~ErrorDocs() = default;
    /** A string literal spelled in full at the throw site, so tests/docs finds and checks it. */
    virtual const char* docs() const noexcept = 0;
};

/**
 * The error `E` with a docs pointer. It is an `E` to every catch, so adding a pointer to a
 * throw site changes no handling; a separate mixin (not a member of Error) keeps the header
 * every file includes unchanged.
 */
template <class E>
class Documented final : public E, public ErrorDocs {
public:
    template <class... Args>
    Documented(const char* docs, const char* file, int line, Args&&... args)
        : E(file, line, std::forward<Args>(args)...), docs_(docs)
    {
    }
    const char* docs() const noexcept override { return docs_; }

private:
    const char* docs_;
};

}  // namespace shardrun

/**
 * Throws `Type(__FILE__, __LINE__, args...)` that points to `docs` ("docs/<page>.md#<anchor>",
 * a literal: the docs test checks that the page has that anchor).
 */
#define SHARDRUN_THROW_DOCUMENTED(Type, docs, ...) throw ::shardrun::Documented<Type>(docs, __FILE__, __LINE__, __VA_ARGS__)

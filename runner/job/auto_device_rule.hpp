#pragma once

// The small rule language of `auto_device: {cpu_if: "n < 1000"}` (issue 26, point 4): when a
// task under `device: auto` runs on the CPU although its rank has a GPU. Pure: text in, a
// decision out; the runner supplies the task's parameter values.
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/error.hpp"

namespace shardrun::job {

/** One comparison `<param> <op> <number>`. */
struct CpuComparison {
    std::string param;
    std::string op;  ///< < <= > >= == !=
    double number = 0;
};

/**
 * A parsed rule: comparisons joined by `and` (binds tighter) and `or`, no parentheses:
 * "n < 1000 or m < 64 and k < 64" is `n < 1000 or (m < 64 and k < 64)`.
 */
struct CpuRule {
    std::string text;                                ///< as the user wrote it
    std::vector<std::vector<CpuComparison>> any_of;  ///< or of and-groups
};

/** Why a rule's text is wrong; `column` counts characters from the text's start (0 based). */
class CpuRuleError : public Error {
public:
    /** @param file, line  where it is thrown (the call site's, by default) */
    CpuRuleError(std::size_t column, const std::string& message, const char* file = __builtin_FILE(),
                 int line = __builtin_LINE())
        : Error(file, line, message), column_(column)
    {
    }
    std::size_t column() const noexcept { return column_; }

private:
    std::size_t column_;
};

/** A rule compares a name the job does not set; the runner says whether the task kind takes it. */
class UnknownRuleParamError : public CpuRuleError {
public:
    UnknownRuleParamError(std::size_t column, std::string name, const std::string& message,
                          const char* file = __builtin_FILE(), int line = __builtin_LINE())
        : CpuRuleError(column, message, file, line), name_(std::move(name))
    {
    }
    const std::string& name() const noexcept { return name_; }

private:
    std::string name_;
};

/**
 * Parses `text`. Every parameter must be one of `known` (an unknown one is refused with the
 * closest known name as a suggestion, "did you mean 'n'?").
 * @throws CpuRuleError  naming what is wrong and what is allowed
 */
CpuRule parse_cpu_rule(std::string_view text, const std::vector<std::string>& known);

/** A parameter's value as a number, nullopt when the task has none or it is not a number. */
using ParamNumber = std::function<std::optional<double>(std::string_view name)>;

/** True when `rule` says the task belongs on the CPU; a comparison on a missing or non-numeric value is false. */
bool cpu_rule_holds(const CpuRule& rule, const ParamNumber& value);

}  // namespace shardrun::job

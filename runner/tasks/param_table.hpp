#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runner/job/param_map.hpp"

namespace shardrun::tasks {

/** What a parameter's value must be. */
enum class ParamType { integer, number, choice, text };

/** "integer", "number", "choice", "text": the type column of `shardrun kinds NAME` and the kinds reference. */
const char* param_type_name(ParamType type) noexcept;

/** Bounds of a number or integer parameter; each side optional, open or closed. */
struct ParamRange {
    std::optional<double> low, high;
    bool low_open = false, high_open = false;

    /** "> 0", ">= 3", "in (0, 10]", or "" when unbounded. */
    std::string text() const;
    bool contains(double value) const noexcept;
};

/** value > low */
ParamRange above(double low);
/** value >= low */
ParamRange at_least(double low);
/** low < value <= high */
ParamRange above_up_to(double low, double high);
/** low <= value < high */
ParamRange from_below(double low, double high);

/**
 * A default that is not one value: another parameter ("n"), a job field ("data.chunk, else 1")
 * or nothing ("none"). The kind computes it; `text` is what `shardrun kinds NAME` prints.
 * Made only by computed(), so a quoted number ("512") cannot pass for a typed default.
 */
struct ComputedDefault {
    std::string text;
};
ComputedDefault computed(std::string text);

/** One parameter of a task kind: everything `shardrun kinds NAME` prints and the parse-time check needs. */
struct ParamSpec {
    std::string name;
    ParamType type = ParamType::number;
    /** The typed default the kind reads (ParamTable::with_defaults); none when it is computed. */
    std::optional<job::ParamValue> value;
    std::string default_text;          ///< "512" (the value's text), "n" (another parameter), "none"
    ParamRange range;                  ///< integer and number only
    std::vector<std::string> choices;  ///< choice only
    std::string doc;                   ///< one line

    /** "an integer >= 1", "a number in (0, 10]", "float32, float64", "any text". */
    std::string allowed() const;
};

/** The parameters of one task kind, in the order `shardrun kinds NAME` lists them. */
struct ParamTable {
    std::vector<ParamSpec> params;
    /** True for kinds that take any names (exec passes them to the program; noop ignores them). */
    bool open = false;

    const ParamSpec* find(std::string_view name) const noexcept;
    std::vector<std::string> names() const;

    /**
     * `given` (a task's parameters) with every parameter it lacks set to its typed default, so
     * a kind reads params.integer("nx") and the default lives only in this table. Computed
     * defaults stay absent: the kind works them out (ny from nx).
     */
    job::ParamMap with_defaults(const job::ParamMap& given) const;
};

// A parameter with a typed default (integer_param("nx", 128, ...)) or a computed one
// (integer_param("ny", computed("nx"), ...)).
ParamSpec integer_param(std::string name, std::int64_t value, ParamRange range, std::string doc);
ParamSpec integer_param(std::string name, ComputedDefault value, ParamRange range, std::string doc);
ParamSpec number_param(std::string name, double value, ParamRange range, std::string doc);
ParamSpec number_param(std::string name, ComputedDefault value, ParamRange range, std::string doc);
ParamSpec choice_param(std::string name, std::string value, std::vector<std::string> choices, std::string doc);
ParamSpec text_param(std::string name, ComputedDefault value, std::string doc);

/**
 * Why `value` is not allowed for `spec` ("n = 0 must be > 0", "'large' is not a number; allowed:
 * an integer >= 1"), or "" when it is.
 */
std::string param_problem(const ParamSpec& spec, const job::ParamValue& value);

/**
 * Why `name` is not a parameter of `table` ("unknown parameter (did you mean 'repeats'?);
 * allowed: ..."), or "" when it is one (or the table is open).
 */
std::string unknown_param_problem(const ParamTable& table, std::string_view name);

}  // namespace shardrun::tasks

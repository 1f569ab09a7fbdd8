#pragma once
// Every CLPRIM_* environment variable is read here, by one parser, with one error for a malformed
// value (naming the variable and listing what it takes). docs/DEVELOPERS.md has the one table of
// them. Tests override a knob for a scope with scoped_knob instead of setenv:
//     clprim::detail::scoped_knob path("CLPRIM_SCAN_PATH", "lookback");
// An override (process-wide, thread-safe) wins over the environment while it lives.
#include <clprim/config.hpp>

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace clprim {
namespace detail {

// The raw text of a knob (an override, else the environment); nullopt when unset or empty.
std::optional<std::string> knob_text(const char* name);

// One of `choices`: the index of the value given, or nullopt when unset. Anything else throws
// clprim::invalid_argument_error listing the choices.
std::optional<std::size_t> knob_choice(const char* name, std::initializer_list<const char*> choices);

// A whole number in [min, max] (decimal), or nullopt when unset; anything else throws.
std::optional<std::size_t> knob_number(const char* name, std::size_t min, std::size_t max);

// Comma-separated whole numbers, from min_count to max_count of them, each in [min, max];
// nullopt when unset; anything else throws. ("256,24" -> {256, 24})
std::optional<std::vector<std::size_t>> knob_numbers(const char* name, std::size_t min_count, std::size_t max_count,
                                                     std::size_t min = 0, std::size_t max = std::size_t(-1));

// Text appended to build options: " " + the knob's text, or "" when unset.
std::string knob_options(const char* name);

// Whether any knob whose name starts with `prefix` may be set: true while any override lives or
// where an environment variable's name starts with it. One pass over the environment, where a
// call's many knob reads would each search it (a hot path reads its family's knobs only then).
bool knobs_with_prefix(const char* prefix);

// Sets a knob for this object's lifetime (a test's scope), restoring what was there before.
class scoped_knob {
public:
    scoped_knob(const char* name, std::string value);
    ~scoped_knob();
    scoped_knob(const scoped_knob&) = delete;
    scoped_knob& operator=(const scoped_knob&) = delete;

private:
    std::string name_;
    std::optional<std::string> previous_;
};

} // namespace detail
} // namespace clprim

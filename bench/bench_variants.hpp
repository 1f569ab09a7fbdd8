#pragma once
// Bench knob CLPRIM_BENCH_VARIANTS="KNOB=value KNOB=value;...": cases that honour it run their
// clprim rows once per variant (those knobs set for its rows), named clprim[variant] (or
// <name>[variant]); unset: one run as configured, rows named plainly. Shared by the cases of
// bench_merge_search.cpp and bench_types.cpp.
#include <clprim/detail/knobs.hpp>

#include <algorithm>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace clprim_bench {

// The variants ("" alone when the knob is unset).
inline std::vector<std::string> bench_variants()
{
    std::vector<std::string> list;
    if (auto text = clprim::detail::knob_text("CLPRIM_BENCH_VARIANTS")) {
        std::stringstream in(*text);
        std::string item;
        while (std::getline(in, item, ';'))
            if (!item.empty()) list.push_back(item);
    }
    if (list.empty()) list.push_back("");
    return list;
}

// The knobs of one variant, set while the result lives.
inline std::vector<std::unique_ptr<clprim::detail::scoped_knob>> apply_variant(const std::string& variant)
{
    std::vector<std::unique_ptr<clprim::detail::scoped_knob>> knobs;
    std::stringstream in(variant);
    std::string item;
    while (in >> item) {
        const auto eq = item.find('=');
        if (eq == std::string::npos) throw std::runtime_error("CLPRIM_BENCH_VARIANTS: expected KNOB=value, got " + item);
        knobs.push_back(std::make_unique<clprim::detail::scoped_knob>(item.substr(0, eq).c_str(), item.substr(eq + 1)));
    }
    return knobs;
}

// The row name (commas as '/', for the CSV).
inline std::string variant_name(std::string variant, const std::string& name = "clprim")
{
    std::replace(variant.begin(), variant.end(), ',', '/');
    return variant.empty() ? name : name + "[" + variant + "]";
}

} // namespace clprim_bench

#pragma once
// Small helpers the example programs and the benchmark share: sizes written as 2^26, 64M or
// 67108864, element-type names, device choice and median timing.
#include <clprim/clprim.hpp>

#include <boost/program_options.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace clprim_examples {

namespace bc = boost::compute;

// Parses the command line into vm by desc; false (after printing desc) when --help was asked for.
inline bool parse_options(const boost::program_options::options_description& desc, int argc, char** argv,
                          boost::program_options::variables_map& vm)
{
    namespace po = boost::program_options;
    po::store(po::parse_command_line(argc, argv, desc), vm);
    po::notify(vm);
    if (vm.count("help")) {
        std::cout << desc << "\n";
        return false;
    }
    return true;
}

// "67108864", "2^26", "64M", "16k", "1G" (binary multiples). Throws std::invalid_argument.
inline std::size_t parse_size(const std::string& text)
{
    auto bad = [&]() -> std::size_t { throw std::invalid_argument("not a size: '" + text + "' (try 2^26, 64M or 67108864)"); };
    if (text.empty()) return bad();
    const auto caret = text.find('^');
    auto parse_uint = [&](const std::string& s) -> std::uint64_t {
        if (s.empty() || s.size() > 19 || !std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); }))
            bad();
        return std::stoull(s);
    };
    if (caret != std::string::npos) {
        const auto base = parse_uint(text.substr(0, caret));
        const auto exp = parse_uint(text.substr(caret + 1));
        if (base != 2 || exp > 40) return bad();
        return std::size_t(1) << exp;
    }
    std::uint64_t mult = 1;
    std::string digits = text;
    switch (text.back()) {
    case 'k': case 'K': mult = 1ull << 10; digits.pop_back(); break;
    case 'm': case 'M': mult = 1ull << 20; digits.pop_back(); break;
    case 'g': case 'G': mult = 1ull << 30; digits.pop_back(); break;
    default: break;
    }
    const auto v = parse_uint(digits);
    if (v > (1ull << 40) / mult) return bad();
    return std::size_t(v * mult);
}

// The device from a --device value ("" = clprim::default_device()).
inline bc::device pick_device(const std::string& selector)
{
    return selector.empty() ? clprim::default_device() : clprim::select_device(selector);
}

// Calls f.template operator()<T>() for the element type named (int, uint, long, ulong, float,
// double). Throws std::invalid_argument for any other name.
template <class F>
void with_type(const std::string& name, F&& f)
{
    if (name == "int") f(cl_int{});
    else if (name == "uint") f(cl_uint{});
    else if (name == "long") f(cl_long{});
    else if (name == "ulong") f(cl_ulong{});
    else if (name == "float") f(cl_float{});
    else if (name == "double") f(cl_double{});
    else throw std::invalid_argument("unknown type '" + name + "' (int, uint, long, ulong, float, double)");
}

// Median wall time in milliseconds of run() (which enqueues work on queue), after warmup calls;
// the queue is drained before and after each call, so every row is measured the same way.
inline double median_ms(bc::command_queue& queue, const std::function<void()>& run, int repeat, int warmup = 2)
{
    for (int i = 0; i < warmup; ++i) run();
    queue.finish();
    std::vector<double> t;
    for (int i = 0; i < std::max(1, repeat); ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        run();
        queue.finish();
        t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

// As above, but prepare() (restoring the input of a sort, say) runs untimed before each call.
inline double median_ms(bc::command_queue& queue, const std::function<void()>& prepare,
                        const std::function<void()>& run, int repeat, int warmup = 1)
{
    std::vector<double> t;
    for (int i = 0; i < warmup + std::max(1, repeat); ++i) {
        prepare();
        queue.finish();
        const auto t0 = std::chrono::steady_clock::now();
        run();
        queue.finish();
        if (i >= warmup)
            t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

} // namespace clprim_examples

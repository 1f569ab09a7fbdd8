#pragma once
// Option parsing of examples/sort_compare, apart from the program so the tests can check it.
#include "example_support.hpp"

#include <boost/program_options.hpp>

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace clprim_examples {

struct sort_compare_options {
    std::vector<std::string> algorithms; // radix, bitonic, merge, odd_even, boost_compute, std
    std::size_t n = std::size_t(1) << 24;
    bool n_given = false; // without --n, CPU devices get a smaller default (see sort_compare.cpp)
    std::string type = "uint";
    bool descending = false;
    std::string distribution = "uniform";
    bool pairs = false;
    int repeat = 5;
    std::string device;
    std::string csv;
    bool help = false;
    std::string usage;
};

// A bad command line: the tool prints what() and the usage and exits with code 2.
struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

inline const std::vector<std::string>& sort_compare_algorithms()
{
    static const std::vector<std::string> all{"radix", "bitonic", "bitonic_transpose", "merge", "odd_even", "boost_compute", "std"};
    return all;
}

inline const std::vector<std::string>& sort_compare_distributions()
{
    static const std::vector<std::string> all{"uniform", "sorted", "reversed", "all_equal", "few_unique", "normal", "extremes"};
    return all;
}

inline sort_compare_options parse_sort_compare_options(int argc, const char* const* argv)
{
    namespace po = boost::program_options;
    sort_compare_options o;
    std::string algorithms = "all", n_text = "2^24", order = "ascending";
    po::options_description desc("sort_compare: sorts the same data with each algorithm and compares them\nOptions");
    desc.add_options()
        ("help,h", "show this help")
        ("algorithm,a", po::value(&algorithms)->default_value("all"),
         "comma list of radix, bitonic (the fused variant), bitonic_transpose, merge, odd_even, boost_compute, std; or all")
        ("n", po::value(&n_text)->default_value("2^24"), "number of keys: 2^24, 16M or 16777216")
        ("type,t", po::value(&o.type)->default_value("uint"), "key type: int, uint, long, ulong, float, double")
        ("order", po::value(&order)->default_value("ascending"), "ascending or descending")
        ("distribution,d", po::value(&o.distribution)->default_value("uniform"),
         "uniform, sorted, reversed, all_equal, few_unique, normal, extremes (only the type's lowest, max, 0, 1, "
         "lowest+1 and max-1)")
        ("pairs", po::bool_switch(&o.pairs), "sort (key, uint value) pairs with sort_by_key")
        ("repeat,r", po::value(&o.repeat)->default_value(5), "timed repeats per algorithm (median shown)")
        ("device", po::value(&o.device)->default_value(""), "device: gpu, cpu, an index or a name substring")
        ("csv", po::value(&o.csv)->default_value(""), "also write the table to this CSV file");
    std::ostringstream u;
    u << desc
      << "\nEach result is checked against std::stable_sort (by the IEEE-754 total order; Boost.Compute's by\n"
         "value): a row whose result differs is marked WRONG with the first differing position, the other\n"
         "rows still run, and the exit status is 1.\n"
         "\nDevice memory: clprim keeps its sorts' temporary buffers (up to 2n keys, and 2n values with --pairs)\n"
         "in a scratch pool between calls, up to a quarter of the device's memory. CLPRIM_SCRATCH_LIMIT_MB=<MiB>\n"
         "caps it (0 keeps nothing); in code, clprim::release_scratch_memory() (<clprim/scratch.hpp>) frees it.\n";
    o.usage = u.str();
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(argc, argv).options(desc).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        throw usage_error(e.what());
    }
    if (vm.count("help")) {
        o.help = true;
        return o;
    }
    o.n_given = !vm["n"].defaulted();
    try {
        o.n = parse_size(n_text);
    } catch (const std::invalid_argument& e) {
        throw usage_error(std::string("--n: ") + e.what());
    }
    if (algorithms == "all") {
        o.algorithms = sort_compare_algorithms();
    } else {
        std::stringstream ss(algorithms);
        std::string a;
        while (std::getline(ss, a, ',')) {
            if (a.empty()) continue;
            const auto& known = sort_compare_algorithms();
            if (std::find(known.begin(), known.end(), a) == known.end())
                throw usage_error("unknown algorithm '" + a + "'");
            o.algorithms.push_back(a);
        }
        if (o.algorithms.empty()) throw usage_error("--algorithm names no algorithm");
    }
    try {
        with_type(o.type, [](auto) {});
    } catch (const std::invalid_argument& e) {
        throw usage_error(e.what());
    }
    if (order != "ascending" && order != "descending") throw usage_error("--order must be ascending or descending");
    o.descending = order == "descending";
    const auto& dists = sort_compare_distributions();
    if (std::find(dists.begin(), dists.end(), o.distribution) == dists.end())
        throw usage_error("unknown distribution '" + o.distribution + "'");
    if (o.repeat < 1) throw usage_error("--repeat must be at least 1");
    return o;
}

} // namespace clprim_examples

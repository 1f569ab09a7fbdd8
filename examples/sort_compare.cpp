// sort_compare: sorts the same data with each chosen algorithm (clprim's radix, bitonic, merge and
// odd-even sorts, Boost.Compute's sort, std::sort on the host) and prints one row each: median
// time, Mkeys/s, speedup over Boost.Compute and whether the result equals std::stable_sort's (a
// row that does not is marked WRONG with the first differing position; the exit status is then 1).
#include "sort_compare_options.hpp"

#include <clprim/clprim.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>

namespace {

using namespace clprim_examples;

// Odd-even transposition sort does O(n^2) work: past this size it would run for minutes.
constexpr std::size_t odd_even_limit = std::size_t(1) << 16;

template <class T>
std::vector<T> make_keys(std::size_t n, const std::string& dist, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::vector<T> v(n);
    auto uniform = [&]() -> T {
        if constexpr (std::is_integral_v<T>) return static_cast<T>(rng());
        else return static_cast<T>(std::uniform_real_distribution<double>(-1e6, 1e6)(rng));
    };
    if (dist == "normal") {
        std::normal_distribution<double> nd(0.0, 1e6);
        for (auto& x : v) {
            double d = nd(rng);
            if constexpr (std::is_unsigned_v<T>) d += 4e9 / 2;
            if constexpr (std::is_integral_v<T>)
                d = std::min<double>(std::max<double>(d, double(std::numeric_limits<T>::lowest())),
                                     double(std::numeric_limits<T>::max()));
            x = static_cast<T>(d);
        }
    } else if (dist == "extremes") {
        // The values that catch sign and overflow mistakes (and Boost.Compute's descending sort of
        // int and long keys on the H100, see README).
        const T ex[] = {std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max(), T(0), T(1),
                        static_cast<T>(std::numeric_limits<T>::lowest() + T(1)),
                        static_cast<T>(std::numeric_limits<T>::max() - T(1))};
        for (auto& x : v) x = ex[rng() % 6];
    } else if (dist == "all_equal") {
        const T c = uniform();
        std::fill(v.begin(), v.end(), c);
    } else if (dist == "few_unique") {
        T pool[16];
        for (auto& p : pool) p = uniform();
        for (auto& x : v) x = pool[rng() % 16];
    } else {
        for (auto& x : v) x = uniform();
        if (dist == "sorted") std::sort(v.begin(), v.end());
        if (dist == "reversed") std::sort(v.begin(), v.end(), [](T a, T b) { return b < a; });
    }
    return v;
}

// The key order every clprim sort promises (IEEE total order for floats).
template <class T>
auto order_key(T x)
{
    if constexpr (std::is_same_v<T, float>) {
        std::uint32_t u;
        std::memcpy(&u, &x, 4);
        return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    } else if constexpr (std::is_same_v<T, double>) {
        std::uint64_t u;
        std::memcpy(&u, &x, 8);
        return (u & 0x8000000000000000ull) ? ~u : (u | 0x8000000000000000ull);
    } else {
        return x;
    }
}

struct row {
    std::string algorithm;
    double ms = 0;
    bool ok = false;
    long first_wrong = -1; // first position whose key (or value) differs from the reference
    std::string note;
};

// Without --n, a CPU device sorts 2^22 keys instead of 2^24, so the first demo takes seconds.
constexpr std::size_t cpu_default_n = std::size_t(1) << 22;

template <class T>
int run(sort_compare_options o)
{
    const bc::device device = pick_device(o.device);
    if (!o.n_given && !(device.type() & CL_DEVICE_TYPE_GPU)) {
        o.n = cpu_default_n;
        std::cout << "(no --n given and the device is not a GPU: sorting 2^22 keys; --n 2^24 for the full size)\n";
    }
    bc::context context(device);
    bc::command_queue queue(context, device);
    const auto order = o.descending ? clprim::sort_order::descending : clprim::sort_order::ascending;
    std::cout << "sort_compare: " << o.n << " " << bc::type_name<T>() << " keys" << (o.pairs ? " with uint values" : "")
              << ", " << o.distribution << ", " << (o.descending ? "descending" : "ascending") << ", median of "
              << o.repeat << "\ndevice: " << device.name() << " (" << device.platform().name() << ", driver "
              << device.driver_version() << ")\n\n";

    const std::vector<T> keys = make_keys<T>(o.n, o.distribution, 2024);
    std::vector<cl_uint> values(o.n);
    for (std::size_t i = 0; i < o.n; ++i) values[i] = cl_uint(i);

    // The reference: std::stable_sort by the total order (stable, so values are determined too).
    std::vector<std::size_t> idx(o.n);
    for (std::size_t i = 0; i < o.n; ++i) idx[i] = i;
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
        return o.descending ? order_key(keys[b]) < order_key(keys[a]) : order_key(keys[a]) < order_key(keys[b]);
    });
    std::vector<T> ref_keys(o.n);
    std::vector<cl_uint> ref_values(o.n);
    for (std::size_t i = 0; i < o.n; ++i) {
        ref_keys[i] = keys[idx[i]];
        ref_values[i] = cl_uint(idx[i]);
    }

    bc::vector<T> d_keys(o.n, context), d_input(o.n, context);
    bc::vector<cl_uint> d_values(o.n, context), d_values_input(o.n, context);
    if (o.n) {
        bc::copy(keys.begin(), keys.end(), d_input.begin(), queue);
        bc::copy(values.begin(), values.end(), d_values_input.begin(), queue);
    }
    auto restore = [&] {
        if (!o.n) return;
        bc::copy(d_input.begin(), d_input.end(), d_keys.begin(), queue);
        if (o.pairs) bc::copy(d_values_input.begin(), d_values_input.end(), d_values.begin(), queue);
    };
    // Stable algorithms must reproduce the values exactly; the others only as a multiset per key.
    // Returns the first wrong position, or -1.
    auto check = [&](bool stable, bool bc_order) -> long {
        std::vector<T> out(o.n);
        std::vector<cl_uint> vout(o.n);
        if (o.n) bc::copy(d_keys.begin(), d_keys.end(), out.begin(), queue);
        if (o.n && o.pairs) bc::copy(d_values.begin(), d_values.end(), vout.begin(), queue);
        queue.finish();
        for (std::size_t i = 0; i < o.n; ++i) {
            const bool same = bc_order // Boost.Compute's own order: compare values with ==, not bits
                                  ? out[i] == ref_keys[i] || (std::isnan(double(out[i])) && std::isnan(double(ref_keys[i])))
                                  : std::memcmp(&out[i], &ref_keys[i], sizeof(T)) == 0;
            if (!same) return long(i);
        }
        if (o.pairs) {
            std::vector<char> seen(o.n, 0);
            for (std::size_t i = 0; i < o.n; ++i) {
                // Stable: the reference's values exactly; otherwise each value once, beside its own key.
                const bool same = stable ? vout[i] == ref_values[i]
                                         : vout[i] < o.n && !seen[vout[i]] && std::memcmp(&keys[vout[i]], &out[i], sizeof(T)) == 0;
                if (!same) return long(i);
                if (!stable) seen[vout[i]] = 1;
            }
        }
        return -1;
    };

    std::vector<row> rows;
    for (const auto& a : o.algorithms) {
        row r;
        r.algorithm = a;
        std::cerr << "  running " << a << "..." << std::flush;
        try {
            if (a == "std") {
                std::vector<double> t;
                for (int i = 0; i < o.repeat; ++i) {
                    std::vector<T> h = keys;
                    const auto t0 = std::chrono::steady_clock::now();
                    if (o.descending)
                        std::sort(h.begin(), h.end(), [](T x, T y) { return order_key(y) < order_key(x); });
                    else
                        std::sort(h.begin(), h.end(), [](T x, T y) { return order_key(x) < order_key(y); });
                    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
                    r.ok = o.n == 0 || std::memcmp(h.data(), ref_keys.data(), o.n * sizeof(T)) == 0;
                }
                std::sort(t.begin(), t.end());
                r.ms = t[t.size() / 2];
                r.note = "host, keys only";
            } else if (a == "odd_even" && o.n > odd_even_limit) {
                r.note = "skipped: O(n^2), above " + std::to_string(odd_even_limit) + " keys it runs for minutes";
                r.ms = -1;
            } else {
                const clprim::sort_algorithm alg = a == "radix" ? clprim::sort_algorithm::radix
                                                 : a.rfind("bitonic", 0) == 0 ? clprim::sort_algorithm::bitonic
                                                 : a == "merge" ? clprim::sort_algorithm::merge
                                                 : a == "odd_even" ? clprim::sort_algorithm::odd_even
                                                                   : clprim::sort_algorithm::boost_compute;
                const bool transpose = a == "bitonic_transpose"; // a bitonic variant clprim::sort does not pick
                auto sort_once = [&] {
                    if (transpose && o.pairs)
                        clprim::bitonic_sort_by_key(d_keys.begin(), d_keys.end(), d_values.begin(), queue, order,
                                                    clprim::bitonic_variant::transpose);
                    else if (transpose)
                        clprim::bitonic_sort(d_keys.begin(), d_keys.end(), queue, order, clprim::bitonic_variant::transpose);
                    else if (o.pairs) clprim::sort_by_key(d_keys.begin(), d_keys.end(), d_values.begin(), queue, alg, order);
                    else clprim::sort(d_keys.begin(), d_keys.end(), queue, alg, order);
                };
                r.ms = median_ms(queue, restore, sort_once, o.repeat, 1);
                const bool stable = alg == clprim::sort_algorithm::radix || alg == clprim::sort_algorithm::merge;
                r.first_wrong = check(stable, alg == clprim::sort_algorithm::boost_compute);
                r.ok = r.first_wrong < 0;
                if (!r.ok) r.note = "first difference from std::stable_sort at position " + std::to_string(r.first_wrong);
            }
        } catch (const clprim::unsupported_error& e) {
            r.ms = -1;
            r.note = std::string("unsupported: ") + e.what();
        }
        std::cerr << "\r" << std::string(40, ' ') << "\r" << std::flush;
        rows.push_back(r);
    }

    double bc_ms = 0;
    for (const auto& r : rows)
        if (r.algorithm == "boost_compute" && r.ms > 0) bc_ms = r.ms;
    std::printf("%-17s %12s %12s %10s %8s\n", "algorithm", "median ms", "Mkeys/s", "vs BC", "correct");
    std::ofstream csv;
    if (!o.csv.empty()) {
        csv.open(o.csv);
        csv << "algorithm,n,type,order,distribution,pairs,ms,mkeys_per_s,speedup_vs_boost_compute,correct\n";
    }
    bool all_ok = true;
    for (const auto& r : rows) {
        if (r.ms < 0) {
            std::printf("%-17s %s\n", r.algorithm.c_str(), r.note.c_str());
            continue;
        }
        const double mkeys = r.ms > 0 ? double(o.n) / (r.ms * 1e3) : 0;
        const double speedup = (bc_ms > 0 && r.ms > 0) ? bc_ms / r.ms : 0;
        char sp[32] = "-";
        if (speedup > 0) std::snprintf(sp, sizeof sp, "%.2fx", speedup);
        std::printf("%-17s %12.3f %12.1f %10s %8s%s%s\n", r.algorithm.c_str(), r.ms, mkeys, sp, r.ok ? "yes" : "WRONG",
                    r.note.empty() ? "" : "   ", r.note.c_str());
        all_ok = all_ok && r.ok;
        if (csv)
            csv << r.algorithm << ',' << o.n << ',' << bc::type_name<T>() << ','
                << (o.descending ? "descending" : "ascending") << ',' << o.distribution << ',' << o.pairs << ','
                << r.ms << ',' << mkeys << ',' << speedup << ',' << r.ok << '\n';
    }
    if (!all_ok) std::printf("\nWRONG: a result differs from std::stable_sort's (exit status 1)\n");
    return all_ok ? 0 : 1;
}

} // namespace

int main(int argc, char** argv)
{
    sort_compare_options o;
    try {
        o = parse_sort_compare_options(argc, argv);
    } catch (const usage_error& e) {
        std::cerr << "sort_compare: " << e.what() << "\n\n" << o.usage;
        // o.usage is empty if parsing failed early: print it from a fresh parse of --help.
        if (o.usage.empty()) {
            const char* help_argv[] = {"sort_compare", "--help"};
            std::cerr << parse_sort_compare_options(2, help_argv).usage;
        }
        return 2;
    }
    if (o.help) {
        std::cout << o.usage;
        return 0;
    }
    try {
        int rc = 0;
        with_type(o.type, [&](auto tag) { rc = run<decltype(tag)>(o); });
        return rc;
    } catch (const std::exception& e) {
        std::cerr << "sort_compare: " << e.what() << "\n";
        return 1;
    }
}

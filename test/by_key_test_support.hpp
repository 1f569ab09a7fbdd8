#pragma once
// Shared by test_by_key.cpp and test_selection.cpp: keys in runs, host references of the by-key
// family (keys compare by their bits), and the paths to force.
#include "clprim_test_fixture.hpp"

#include <clprim/detail/device_profile.hpp>

namespace clprim_test {

// Keys in runs: run lengths uniform in [min_run, max_run]; each run's key drawn from a small pool
// (so neighbouring runs sometimes share a key and merge: the reference decides), for floats from
// bit patterns that compare equal as values but not as bits (-0.0 / +0.0, NaNs of both signs).
template <class K>
std::vector<K> run_keys(std::size_t n, std::size_t min_run, std::size_t max_run, std::uint64_t seed = 7)
{
    std::mt19937_64 rng(seed ^ (n * 0x9e3779b97f4a7c15ull) ^ (max_run << 40));
    std::vector<K> pool;
    if constexpr (std::is_floating_point_v<K>) {
        using lim = std::numeric_limits<K>;
        pool = {K(0.0), K(-0.0), lim::quiet_NaN(), -lim::quiet_NaN(), lim::infinity(), K(1), K(-1), K(2.5)};
    } else {
        for (int i = 0; i < 9; ++i) pool.push_back(random_value<K>(rng));
    }
    std::vector<K> keys;
    keys.reserve(n);
    std::size_t p = 0;
    while (keys.size() < n) {
        const std::size_t len = min_run + rng() % (max_run - min_run + 1);
        p = (p + 1 + rng() % (pool.size() - 1)) % pool.size(); // never the previous run's key
        for (std::size_t j = 0; j < len && keys.size() < n; ++j) keys.push_back(pool[p]);
    }
    return keys;
}

// Small values: sums of floats stay exact integers, signed sums never overflow.
template <class V>
std::vector<V> small_values(std::size_t n, std::uint64_t seed = 11)
{
    std::mt19937_64 rng(seed ^ n);
    std::vector<V> v(n);
    // Floats: at most 7, so that sums of 2^20 of them stay exact.
    for (auto& x : v) x = V(std::is_floating_point_v<V> ? rng() % 8 : rng() % 1000);
    return v;
}

template <class T>
bool same_bits(const T& a, const T& b)
{
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Host reduce_by_key with op (left fold within every run).
template <class K, class V, class Op>
std::size_t host_reduce_by_key(const std::vector<K>& keys, const std::vector<V>& vals, Op op, std::vector<K>& ok,
                               std::vector<V>& ov)
{
    ok.clear();
    ov.clear();
    for (std::size_t i = 0; i < keys.size(); ++i) {
        if (i == 0 || !same_bits(keys[i], keys[i - 1])) {
            ok.push_back(keys[i]);
            ov.push_back(vals[i]);
        } else {
            ov.back() = op(ov.back(), vals[i]);
        }
    }
    return ok.size();
}

// Host scans by key: inclusive, or exclusive from init (op(init, fold before i), init at a head).
template <class K, class V, class Op>
std::vector<V> host_scan_by_key(const std::vector<K>& keys, const std::vector<V>& vals, Op op, bool inclusive, V init)
{
    std::vector<V> out(keys.size());
    V acc{};
    for (std::size_t i = 0; i < keys.size(); ++i) {
        const bool head = i == 0 || !same_bits(keys[i], keys[i - 1]);
        if (inclusive) {
            acc = head ? vals[i] : op(acc, vals[i]);
            out[i] = acc;
        } else {
            acc = head ? init : op(acc, vals[i - 1]);
            out[i] = acc;
        }
    }
    return out;
}

// The sizes the by-key suites run: 2^20 + 3 and 2^26 only where the device is not a CPU.
inline std::vector<std::size_t> by_key_sizes()
{
    std::vector<std::size_t> s{0, 1, 2, 31, 257, 1021, 4097, 8191, 65537};
    if (!clprim::detail::profile_of(device_under_test::get().device).is_cpu()) {
        s.push_back((std::size_t(1) << 20) + 3);
        s.push_back(std::size_t(1) << 26);
    }
    return s;
}

// Run shapes: every run of length 1, random lengths 1..15, one run over the whole range.
struct run_shape {
    std::size_t min_run, max_run;
    const char* name;
};
inline const std::vector<run_shape>& run_shapes()
{
    static const std::vector<run_shape> s{
        {1, 1, "runs of 1"}, {1, 15, "runs of 1-15"}, {std::size_t(1) << 40, std::size_t(1) << 40, "one run"}};
    return s;
}

// Both device-wide paths, by name, for the loops that force each.
inline const std::vector<const char*>& by_key_paths()
{
    static const std::vector<const char*> p{"lookback", "chunks"};
    return p;
}

// Integer wrap-around on the host, as on the device.
template <class T>
T add_wrap(T a, T b)
{
    if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        return T(U(a) + U(b));
    } else {
        return a + b;
    }
}

} // namespace clprim_test

// Radix sort bench: uint keys, uint->uint pairs, float keys and ulong keys at each size, beside
// bc::sort / bc::sort_by_key on the same data in the same run, in Gkeys/s. The input is restored
// (device to device, untimed) before every repeat; every result is checked against the host
// (std::sort over (key, index) pairs = std::stable_sort, bit for bit).
// CLPRIM_RADIX_SWEEP="wg,kpt,variant;..." adds a radix row per setting (CLPRIM_RADIX_TUNE and
// CLPRIM_RADIX_VARIANT for that row), named "radix:WGxKPT/vV", for tuning on one device.
// Every size up to 2^28 also gets a "radix:multipass" row (the textbook three-kernel pass, forced)
// and the Boost.Compute rows; above (2^31: 8 GiB of uint keys) only uint keys and uint -> uint
// pairs by clprim's default path run (the one-sweep sort in portions on GPUs), with hashed input.
// CLPRIM_ONESWEEP_SWEEP="wg,kpt;..." adds one-sweep rows per tile shape ("radix:onesweep:wg,kpt").
#include "bench_framework.hpp"

#include <clprim/detail/kernel_launch.hpp>

#include <boost/compute/algorithm/copy.hpp>
#include <boost/compute/algorithm/sort.hpp>
#include <boost/compute/algorithm/sort_by_key.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <numeric>
#include <random>
#include <type_traits>

namespace {

namespace bc = boost::compute;
using clprim_bench::result;

template <class T>
T bench_value(std::mt19937_64& rng)
{
    if constexpr (std::is_floating_point_v<T>) {
        std::uniform_real_distribution<double> u(-1.0e6, 1.0e6);
        return T(u(rng));
    } else {
        return T(rng());
    }
}

template <class T>
auto order_bits(T x)
{
    if constexpr (std::is_same_v<T, cl_float>) {
        cl_uint u;
        std::memcpy(&u, &x, 4);
        return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    } else {
        return x;
    }
}

// A 64-bit mix of a key's order bits (splitmix64's finaliser), summed over a range: equal sums
// for the input and the output say they hold the same keys (up to a 2^-64 chance).
inline cl_ulong mix_bits(cl_ulong x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

template <class K>
void bench_keys(clprim_bench::context& ctx, std::size_t n, const char* type, bool pairs)
{
    auto& q = ctx.queue;
    std::mt19937_64 rng(n * 31 + sizeof(K));
    std::vector<K> host(n);
    // Above 2^28 keys a 64-bit mix of the index: seconds, not a minute, at 2^31.
    const bool huge = n > (std::size_t(1) << 28);
    if (huge) {
        for (std::size_t i = 0; i < n; ++i) host[i] = K(mix_bits(cl_ulong(i) * 31 + sizeof(K)));
    } else {
        for (auto& x : host) x = bench_value<K>(rng);
    }
    cl_ulong host_sum = 0;
    for (const K& x : host) host_sum += mix_bits(cl_ulong(order_bits(x)));

    bc::vector<K> source(n, ctx.ctx), keys(n, ctx.ctx);
    bc::copy(host.begin(), host.end(), source.begin(), q);
    std::vector<cl_uint> iota(pairs ? n : 0);
    std::iota(iota.begin(), iota.end(), 0u);
    bc::vector<cl_uint> vsource(pairs ? n : 0, ctx.ctx), values(pairs ? n : 0, ctx.ctx);
    if (pairs) bc::copy(iota.begin(), iota.end(), vsource.begin(), q);

    auto prepare = [&] {
        bc::copy(source.begin(), source.end(), keys.begin(), q);
        if (pairs) bc::copy(vsource.begin(), vsource.end(), values.begin(), q);
    };
    // In O(n), so that 2^28 keys check in seconds: the keys ascend; keys alone hold the input's
    // keys (equal mixed sums); pairs: the values (input positions) are a permutation, each key is
    // the input key at its value's position and, when stable, equal keys keep their input order.
    auto check = [&](bool stable) {
        std::vector<K> k(n);
        bc::copy(keys.begin(), keys.end(), k.begin(), q);
        std::vector<cl_uint> v(pairs ? n : 0);
        if (pairs) bc::copy(values.begin(), values.end(), v.begin(), q);
        q.finish();
        for (std::size_t i = 1; i < n; ++i) {
            if (order_bits(k[i]) < order_bits(k[i - 1])) return false;
            if (pairs && stable && order_bits(k[i]) == order_bits(k[i - 1]) && v[i] < v[i - 1]) return false;
        }
        if (!pairs) {
            cl_ulong sum = 0;
            for (const K& x : k) sum += mix_bits(cl_ulong(order_bits(x)));
            return sum == host_sum;
        }
        if (huge) {
            // Streaming, no gather (seconds at 2^31, not minutes): each key recomputed from its
            // value (the input position), the values a permutation by equal mixed sums.
            cl_ulong want = 0, got = 0;
            for (std::size_t i = 0; i < n; ++i) {
                if (v[i] >= n || order_bits(K(mix_bits(cl_ulong(v[i]) * 31 + sizeof(K)))) != order_bits(k[i])) return false;
                want += mix_bits(cl_ulong(i));
                got += mix_bits(cl_ulong(v[i]));
            }
            return want == got;
        }
        std::vector<bool> seen(n, false);
        for (std::size_t i = 0; i < n; ++i) {
            if (v[i] >= n || seen[v[i]] || order_bits(host[v[i]]) != order_bits(k[i])) return false;
            seen[v[i]] = true;
        }
        return true;
    };

    result r;
    r.group = pairs ? "sort_by_key" : "sort";
    r.name = "radix";
    r.type = type;
    r.n = n;
    auto run_radix = [&] {
        if (pairs) clprim::radix_sort_by_key(keys.begin(), keys.end(), values.begin(), q);
        else clprim::radix_sort(keys.begin(), keys.end(), q);
    };
    r.ms = clprim_examples::median_ms(q, prepare, run_radix, ctx.repeat);
    r.gkeys = r.ms > 0 ? double(n) / (r.ms * 1e6) : 0;
    r.correct = check(true);
    ctx.add(r);

    if (huge) return; // the multipass and Boost.Compute rows would take minutes there

    // The textbook pass (count, scan, scatter per digit) beside the default path, where the
    // default is another one (one-sweep on GPUs, the chunked CPU path on CPUs).
    {
        const char* path0 = std::getenv("CLPRIM_RADIX_PATH");
        const std::string path_saved = path0 ? path0 : "";
        setenv("CLPRIM_RADIX_PATH", "multipass", 1);
        result s = r;
        s.name = "radix:multipass";
        s.ms = clprim_examples::median_ms(q, prepare, run_radix, ctx.repeat);
        s.gkeys = s.ms > 0 ? double(n) / (s.ms * 1e6) : 0;
        s.correct = check(true);
        ctx.add(s);
        // CLPRIM_ONESWEEP_SWEEP="wg,kpt;...": one-sweep rows per tile shape, for tuning.
        if (const char* sweep = std::getenv("CLPRIM_ONESWEEP_SWEEP")) {
            setenv("CLPRIM_RADIX_PATH", "onesweep", 1);
            std::stringstream list(sweep);
            std::string item;
            while (std::getline(list, item, ';')) {
                setenv("CLPRIM_ONESWEEP_TUNE", item.c_str(), 1);
                result o = r;
                o.name = "radix:onesweep:" + item;
                o.ms = clprim_examples::median_ms(q, prepare, run_radix, ctx.repeat);
                o.gkeys = o.ms > 0 ? double(n) / (o.ms * 1e6) : 0;
                o.correct = check(true);
                std::fprintf(stderr, "sweep %s %s %s %zu %.4f ms %.3f Gkeys/s%s\n", o.group.c_str(), type,
                             o.name.c_str(), n, o.ms, o.gkeys, o.correct ? "" : " WRONG");
                ctx.add(o);
            }
            unsetenv("CLPRIM_ONESWEEP_TUNE");
        }
        if (path0) setenv("CLPRIM_RADIX_PATH", path_saved.c_str(), 1);
        else unsetenv("CLPRIM_RADIX_PATH");
    }

    if (const char* sweep = std::getenv("CLPRIM_RADIX_SWEEP")) {
        const char* tune0 = std::getenv("CLPRIM_RADIX_TUNE");
        const char* var0 = std::getenv("CLPRIM_RADIX_VARIANT");
        const std::string tune_saved = tune0 ? tune0 : "", var_saved = var0 ? var0 : "";
        std::stringstream list(sweep);
        std::string item;
        while (std::getline(list, item, ';')) {
            unsigned wg = 0, kpt = 0, var = 0;
            if (std::sscanf(item.c_str(), "%u,%u,%u", &wg, &kpt, &var) != 3) continue;
            setenv("CLPRIM_RADIX_TUNE", (std::to_string(wg) + "," + std::to_string(kpt)).c_str(), 1);
            setenv("CLPRIM_RADIX_VARIANT", std::to_string(var).c_str(), 1);
            result s = r;
            s.name = "radix:" + std::to_string(wg) + "x" + std::to_string(kpt) + "/v" + std::to_string(var);
            s.ms = clprim_examples::median_ms(q, prepare, run_radix, ctx.repeat);
            s.gkeys = s.ms > 0 ? double(n) / (s.ms * 1e6) : 0;
            s.correct = check(true);
            std::fprintf(stderr, "sweep %s %s %zu %.4f ms %.3f Gkeys/s%s\n", s.group.c_str(), s.name.c_str(), n, s.ms,
                         s.gkeys, s.correct ? "" : " WRONG");
            ctx.add(s);
        }
        if (tune0) setenv("CLPRIM_RADIX_TUNE", tune_saved.c_str(), 1);
        else unsetenv("CLPRIM_RADIX_TUNE");
        if (var0) setenv("CLPRIM_RADIX_VARIANT", var_saved.c_str(), 1);
        else unsetenv("CLPRIM_RADIX_VARIANT");
    }

    result b = r;
    b.name = "boost_compute";
    b.baseline = true;
    auto run_bc = [&] {
        if (pairs) bc::sort_by_key(keys.begin(), keys.end(), values.begin(), q);
        else bc::sort(keys.begin(), keys.end(), q);
    };
    b.ms = clprim_examples::median_ms(q, prepare, run_bc, std::max(1, ctx.repeat / 2));
    b.gkeys = b.ms > 0 ? double(n) / (b.ms * 1e6) : 0;
    b.correct = check(false);
    ctx.add(b);
}

} // namespace

CLPRIM_BENCH(radix_sort)
{
    for (std::size_t n : ctx.sizes) {
        bench_keys<cl_uint>(ctx, n, "uint", false);
        bench_keys<cl_uint>(ctx, n, "uint", true);
        if (n > (std::size_t(1) << 28)) continue; // uint keys and pairs only (host time and memory)
        bench_keys<cl_float>(ctx, n, "float", false);
        bench_keys<cl_ulong>(ctx, n, "ulong", false);
    }
}

namespace {

// Device time per kernel of one sort call, averaged over the repeats (profiling queue).
template <class K>
void profile_keys(clprim_bench::context& ctx, bc::command_queue& q, std::size_t n, const char* type, bool pairs)
{
    std::mt19937_64 rng(n * 31 + sizeof(K));
    std::vector<K> host(n);
    for (auto& x : host) x = bench_value<K>(rng);
    bc::vector<K> source(n, ctx.ctx), keys(n, ctx.ctx);
    bc::copy(host.begin(), host.end(), source.begin(), q);
    bc::vector<cl_uint> values(pairs ? n : 0, ctx.ctx);
    auto run = [&] {
        bc::copy(source.begin(), source.end(), keys.begin(), q);
        if (pairs) clprim::radix_sort_by_key(keys.begin(), keys.end(), values.begin(), q);
        else clprim::radix_sort(keys.begin(), keys.end(), q);
        q.finish();
    };
    run(); // build and warm up
    const int reps = std::max(1, ctx.repeat);
    clprim::detail::kernel_profile(true);
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) run();
    const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / reps;
    const auto times = clprim::detail::kernel_profile_report();
    clprim::detail::kernel_profile(false);
    const double total = clprim_bench::kernel_ms_per_call(times, reps);
    std::printf("radix_profile %s%s n=%zu: kernels %.4f ms per call (wall incl. input copy %.4f ms)\n", type,
                pairs ? "->uint" : "", n, total, wall);
    clprim_bench::print_kernel_times(times, reps);
}

} // namespace

// Bench case "radix_profile" (diagnostic, prints to stdout, adds no rows): where a radix sort's
// time goes, kernel by kernel (digit count, the scan's kernels, rank and scatter), for uint keys,
// uint -> uint pairs and ulong keys.
CLPRIM_BENCH(radix_profile)
{
    bc::command_queue q(ctx.ctx, ctx.device, CL_QUEUE_PROFILING_ENABLE);
    for (std::size_t n : ctx.sizes) {
        profile_keys<cl_uint>(ctx, q, n, "uint", false);
        profile_keys<cl_uint>(ctx, q, n, "uint", true);
        profile_keys<cl_ulong>(ctx, q, n, "ulong", false);
    }
}

// Sort bench for the 8/16-bit key types and vector values (issue #30): `sort` rows of uchar and
// ushort keys (one and two 8-bit digit passes) and `sort_by_key` rows of uint keys with float4
// values (16 bytes, type "uint_float4"), clprim's radix sort beside bc::sort / bc::sort_by_key on
// the same data in the same run. The input is restored (device to device, untimed) before every
// repeat; every result is checked on the host (keys ascending and the same multiset by counting
// every key value; values: each float4 carries its input position in its first word and random
// bits in the others, which must arrive unchanged, beside their key, in stable order).
// CUB beside: bench/cuda_reference/cub_types.cu.
#include "bench_framework.hpp"
#include "bench_variants.hpp"

#include <boost/compute/algorithm/copy.hpp>
#include <boost/compute/algorithm/sort.hpp>
#include <boost/compute/algorithm/sort_by_key.hpp>

#include <cstring>
#include <random>
#include <vector>

namespace {

namespace bc = boost::compute;
using clprim_bench::result;

// One row of group/type/n: run timed after prepare (untimed), then checked.
template <class Prepare, class Run, class Check>
void add_row(clprim_bench::context& ctx, result r, const char* name, Prepare& prepare, Run&& run, Check&& check)
{
    r.name = name;
    r.baseline = r.name == "boost_compute";
    r.ms = clprim_examples::median_ms(ctx.queue, prepare, run, r.baseline ? std::max(1, ctx.repeat / 2) : ctx.repeat);
    r.gkeys = r.ms > 0 ? double(r.n) / (r.ms * 1e6) : 0;
    r.correct = check();
    ctx.add(r);
}

// baseline: Boost.Compute's row beside; variants: clprim's rows once per CLPRIM_BENCH_VARIANTS entry.
template <class K>
void bench_small_keys(clprim_bench::context& ctx, std::size_t n, const char* type, bool baseline = true,
                      const std::vector<std::string>& variants = {""})
{
    auto& q = ctx.queue;
    std::mt19937_64 rng(n * 17 + sizeof(K));
    std::vector<K> host(n);
    for (auto& x : host) x = K(rng());
    std::vector<std::size_t> count(std::size_t(1) << (8 * sizeof(K)), 0);
    for (K x : host) ++count[x];
    bc::vector<K> source(n, ctx.ctx), keys(n, ctx.ctx);
    bc::copy(host.begin(), host.end(), source.begin(), q);
    auto prepare = [&] { bc::copy(source.begin(), source.end(), keys.begin(), q); };
    auto check = [&] {
        std::vector<K> k(n);
        bc::copy(keys.begin(), keys.end(), k.begin(), q);
        q.finish();
        std::vector<std::size_t> c(count.size(), 0);
        for (std::size_t i = 0; i < n; ++i) {
            if (i > 0 && k[i] < k[i - 1]) return false;
            ++c[k[i]];
        }
        return c == count;
    };
    result r;
    r.group = "sort";
    r.type = type;
    r.n = n;
    for (const auto& v : variants) {
        const auto knobs = clprim_bench::apply_variant(v);
        const std::string name = clprim_bench::variant_name(v, "radix");
        add_row(ctx, r, name.c_str(), prepare, [&] { clprim::radix_sort(keys.begin(), keys.end(), q); }, check);
    }
    if (baseline) add_row(ctx, r, "boost_compute", prepare, [&] { bc::sort(keys.begin(), keys.end(), q); }, check);
}

// uint keys -> V values (16 or 32 bytes): V's first word is the input position.
template <class V>
void bench_vector_pairs(clprim_bench::context& ctx, std::size_t n, const char* type)
{
    auto& q = ctx.queue;
    std::mt19937_64 rng(n * 13 + sizeof(V));
    std::vector<cl_uint> host(n);
    for (auto& x : host) x = cl_uint(rng());
    std::vector<V> hv(n);
    for (std::size_t i = 0; i < n; ++i) {
        cl_uint w[sizeof(V) / 4];
        w[0] = cl_uint(i);
        for (std::size_t j = 1; j < sizeof(V) / 4; ++j) w[j] = cl_uint(rng());
        std::memcpy(static_cast<void*>(&hv[i]), w, sizeof(V));
    }
    bc::vector<cl_uint> source(n, ctx.ctx), keys(n, ctx.ctx);
    bc::vector<V> vsource(n, ctx.ctx), values(n, ctx.ctx);
    bc::copy(host.begin(), host.end(), source.begin(), q);
    bc::copy(hv.begin(), hv.end(), vsource.begin(), q);
    auto prepare = [&] {
        bc::copy(source.begin(), source.end(), keys.begin(), q);
        bc::copy(vsource.begin(), vsource.end(), values.begin(), q);
    };
    auto check = [&](bool stable) {
        std::vector<cl_uint> k(n);
        std::vector<V> v(n);
        bc::copy(keys.begin(), keys.end(), k.begin(), q);
        bc::copy(values.begin(), values.end(), v.begin(), q);
        q.finish();
        std::vector<bool> seen(n, false);
        cl_uint prev_pos = 0;
        for (std::size_t i = 0; i < n; ++i) {
            cl_uint pos;
            std::memcpy(&pos, &v[i], 4);
            if (pos >= n || seen[pos] || host[pos] != k[i] || std::memcmp(&hv[pos], &v[i], sizeof(V)) != 0) return false;
            if (i > 0 && (k[i] < k[i - 1] || (stable && k[i] == k[i - 1] && pos < prev_pos))) return false;
            seen[pos] = true;
            prev_pos = pos;
        }
        return true;
    };
    result r;
    r.group = "sort_by_key";
    r.type = type;
    r.n = n;
    add_row(ctx, r, "radix", prepare, [&] { clprim::radix_sort_by_key(keys.begin(), keys.end(), values.begin(), q); },
            [&] { return check(true); });
    add_row(ctx, r, "boost_compute", prepare, [&] { bc::sort_by_key(keys.begin(), keys.end(), values.begin(), q); },
            [&] { return check(false); });
}

} // namespace

CLPRIM_BENCH(sort_types)
{
    for (std::size_t n : ctx.sizes) {
        bench_small_keys<cl_uchar>(ctx, n, "uchar");
        bench_small_keys<cl_ushort>(ctx, n, "ushort");
        bench_vector_pairs<bc::float4_>(ctx, n, "uint_float4");
    }
}

// Bench case "sort_types_clprim": the uchar and ushort radix rows alone, per CLPRIM_BENCH_VARIANTS
// entry (one-sweep shapes side by side: CLPRIM_ONESWEEP_TUNE=wg,kpt[,rounds[,groups]]).
CLPRIM_BENCH(sort_types_clprim)
{
    const auto variants = clprim_bench::bench_variants();
    for (std::size_t n : ctx.sizes) {
        bench_small_keys<cl_uchar>(ctx, n, "uchar", false, variants);
        bench_small_keys<cl_ushort>(ctx, n, "ushort", false, variants);
    }
}

// Merging, searching, the top k and comparator sorts (issue #30), random uint keys (int for the
// comparator sort), n from --sizes:
//  - group merge: two sorted halves of n merged (clprim beside bc::merge);
//  - group lower_bound: n random queries over a sorted range of n (clprim only: Boost.Compute's
//    lower_bound answers one value per call);
//  - group top_k: the 100 and the 2^20 largest (rows k100, k1048576; k <= n) beside Boost.Compute
//    sorting everything descending (bc::sort with bc::greater, the first k read);
//  - group sort_comparator: ints by abs(a) < abs(b) (a BOOST_COMPUTE_FUNCTION), clprim beside
//    bc::sort with the same function.
// Every row is checked against the host. Case merge_search_clprim: the merge and lower_bound rows
// of clprim alone; merge_clprim: the merge rows alone (both per CLPRIM_BENCH_VARIANTS).
#include "bench_framework.hpp"
#include "bench_variants.hpp"

#include <clprim/merge.hpp>
#include <clprim/search.hpp>
#include <clprim/sort.hpp>
#include <clprim/top_k.hpp>

#include <clprim/detail/algorithms_kernels.hpp>
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/element_type.hpp>
#include <clprim/detail/knobs.hpp>

#include <boost/compute/algorithm/copy.hpp>
#include <boost/compute/algorithm/fill.hpp>
#include <boost/compute/algorithm/merge.hpp>
#include <boost/compute/algorithm/sort.hpp>
#include <boost/compute/function.hpp>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

BOOST_COMPUTE_FUNCTION(bool, bench_abs_less, (int a, int b), { return abs(a) < abs(b); });

void add_row(clprim_bench::context& ctx, const char* group, const std::string& name, const char* type, std::size_t n,
             double ms, double bytes, bool baseline, bool correct)
{
    clprim_bench::result r;
    r.group = group;
    r.name = name;
    r.type = type;
    r.n = n;
    r.ms = ms;
    r.gkeys = ms > 0 ? double(n) / (ms * 1e-3) / 1e9 : 0;
    r.gbps = ms > 0 && bytes > 0 ? bytes / (ms * 1e-3) / 1e9 : 0;
    r.baseline = baseline;
    r.correct = correct;
    ctx.add(r);
}

using clprim_bench::apply_variant;
using clprim_bench::bench_variants;
using clprim_bench::variant_name;

// merge: the two sorted halves of host (clprim per variant, and Boost.Compute beside when
// `baseline`).
void merge_rows(clprim_bench::context& ctx, const std::vector<cl_uint>& host, bool baseline,
                const std::vector<std::string>& variants)
{
    using namespace clprim_bench;
    auto& q = ctx.queue;
    const std::size_t n = host.size(), n1 = n / 2;
    std::vector<cl_uint> in = host;
    std::sort(in.begin(), in.begin() + n1);
    std::sort(in.begin() + n1, in.end());
    std::vector<cl_uint> want(n);
    std::merge(in.begin(), in.begin() + n1, in.begin() + n1, in.end(), want.begin());
    bc::vector<cl_uint> dev(in.begin(), in.end(), q), out(n, ctx.ctx);
    auto row = [&](const std::string& name, bool base, const std::function<void()>& run) {
        bc::fill(out.begin(), out.end(), 0u, q);
        const double ms = median_ms(q, run, ctx.repeat);
        std::vector<cl_uint> got(n);
        bc::copy(out.begin(), out.end(), got.begin(), q);
        add_row(ctx, "merge", name, "uint", n, ms, 2.0 * n * sizeof(cl_uint), base, got == want);
    };
    for (const auto& v : variants) {
        const auto knobs = apply_variant(v);
        row(variant_name(v), false,
            [&] { clprim::merge(dev.begin(), dev.begin() + n1, dev.begin() + n1, dev.end(), out.begin(), q); });
    }
    if (baseline)
        row("boost_compute", true, [&] { bc::merge(dev.begin(), dev.begin() + n1, dev.begin() + n1, dev.end(), out.begin(), q); });
}

// lower_bound: n random queries (from rng) over the sorted host, per variant.
void lower_bound_rows(clprim_bench::context& ctx, const std::vector<cl_uint>& host, std::mt19937& rng,
                      const std::vector<std::string>& variants)
{
    using namespace clprim_bench;
    auto& q = ctx.queue;
    const std::size_t n = host.size();
    std::vector<cl_uint> sorted = host, queries(n);
    std::sort(sorted.begin(), sorted.end());
    for (auto& x : queries) x = rng();
    bc::vector<cl_uint> ds(sorted.begin(), sorted.end(), q), dq(queries.begin(), queries.end(), q), out(n, ctx.ctx);
    for (const auto& v : variants) {
        const auto knobs = apply_variant(v);
        bc::fill(out.begin(), out.end(), 0u, q);
        const double ms = median_ms(
            q, [&] { clprim::lower_bound(ds.begin(), ds.end(), dq.begin(), dq.end(), out.begin(), q); }, ctx.repeat);
        std::vector<cl_uint> got(n);
        bc::copy(out.begin(), out.end(), got.begin(), q);
        bool ok = true;
        for (std::size_t i = 0; i < n && ok; i += 1 + n / 100000)
            ok = got[i] == cl_uint(std::lower_bound(sorted.begin(), sorted.end(), queries[i]) - sorted.begin());
        add_row(ctx, "lower_bound", variant_name(v), "uint", n, ms, 2.0 * n * sizeof(cl_uint), false, ok);
    }
}

} // namespace

CLPRIM_BENCH(merge_search)
{
    using namespace clprim_bench;
    auto& q = ctx.queue;
    for (const std::size_t n : ctx.sizes) {
        std::mt19937 rng(static_cast<unsigned>(n) ^ 0x5eedu);
        std::vector<cl_uint> host(n);
        for (auto& x : host) x = rng();

        merge_rows(ctx, host, true, {""});
        lower_bound_rows(ctx, host, rng, {""});

        // top_k: the k largest of host.
        {
            bc::vector<cl_uint> dev(host.begin(), host.end(), q), work(n, ctx.ctx);
            std::vector<cl_uint> desc = host;
            std::sort(desc.begin(), desc.end(), std::greater<cl_uint>());
            for (std::size_t k : {std::size_t(100), std::size_t(1) << 20}) {
                if (k > n) continue;
                bc::vector<cl_uint> out(k, ctx.ctx);
                const double ms = median_ms(q, [&] { clprim::top_k(dev.begin(), dev.end(), k, out.begin(), q); }, ctx.repeat);
                std::vector<cl_uint> got(k);
                bc::copy(out.begin(), out.end(), got.begin(), q);
                add_row(ctx, "top_k", "k" + std::to_string(k), "uint", n, ms, double(n) * sizeof(cl_uint), false,
                        std::equal(got.begin(), got.end(), desc.begin()));
            }
            const double ms = median_ms(
                q, [&] { bc::copy(dev.begin(), dev.end(), work.begin(), q); },
                [&] { bc::sort(work.begin(), work.end(), bc::greater<cl_uint>(), q); }, std::max(1, ctx.repeat / 2));
            std::vector<cl_uint> got(std::min<std::size_t>(n, 100));
            bc::copy(work.begin(), work.begin() + got.size(), got.begin(), q);
            add_row(ctx, "top_k", "boost_compute", "uint", n, ms, double(n) * sizeof(cl_uint), true,
                    std::equal(got.begin(), got.end(), desc.begin()));
        }

        // sort_comparator: ints by absolute value (stable on clprim's side).
        {
            std::vector<cl_int> keys(n);
            for (std::size_t i = 0; i < n; ++i) keys[i] = cl_int(host[i]);
            auto abs_less = [](cl_int a, cl_int b) { return std::abs(std::int64_t(a)) < std::abs(std::int64_t(b)); };
            std::vector<cl_int> want = keys;
            std::stable_sort(want.begin(), want.end(), abs_less);
            bc::vector<cl_int> input(keys.begin(), keys.end(), q), work(n, ctx.ctx);
            auto row = [&](const char* name, bool baseline, bool stable, const std::function<void()>& run) {
                const double ms = median_ms(
                    q, [&] { bc::copy(input.begin(), input.end(), work.begin(), q); }, run,
                    baseline ? std::max(1, ctx.repeat / 2) : ctx.repeat);
                std::vector<cl_int> got(n);
                bc::copy(work.begin(), work.end(), got.begin(), q);
                bool ok = stable ? got == want : true;
                for (std::size_t i = 0; !stable && i + 1 < n && ok; ++i) ok = !abs_less(got[i + 1], got[i]);
                add_row(ctx, "sort_comparator", name, "int", n, ms, 0, baseline, ok);
            };
            row("clprim", false, true, [&] { clprim::sort(work.begin(), work.end(), q, bench_abs_less); });
            row("boost_compute", true, false, [&] { bc::sort(work.begin(), work.end(), bench_abs_less, q); });
        }
    }
}

namespace {

// merge_search's merge rows (and lower_bound's) of clprim alone, per variant.
void clprim_rows(clprim_bench::context& ctx, bool lower_bound)
{
    const auto variants = bench_variants();
    for (const std::size_t n : ctx.sizes) {
        std::mt19937 rng(static_cast<unsigned>(n) ^ 0x5eedu);
        std::vector<cl_uint> host(n);
        for (auto& x : host) x = rng();
        merge_rows(ctx, host, false, variants);
        if (lower_bound) lower_bound_rows(ctx, host, rng, variants);
    }
}

} // namespace

// Bench case "merge_search_clprim": merge_search's merge and lower_bound rows, clprim's alone (a
// quick run per setting of CLPRIM_MERGE_* / CLPRIM_SEARCH_* when comparing variants).
CLPRIM_BENCH(merge_search_clprim)
{
    clprim_rows(ctx, true);
}

// Bench case "merge_clprim": the merge rows alone, per variant (merge shapes side by side:
// CLPRIM_MERGE_STREAM, CLPRIM_MERGE_GPU_TUNE, ...).
CLPRIM_BENCH(merge_clprim)
{
    clprim_rows(ctx, false);
}

// Bench case "merge_pairs_clprim": per variant, the merge of two sorted halves descending (group
// "merge", name "desc" + the variant) and merge_by_key ascending with uint values (group
// "merge_by_key"): the public merge's other shapes beside merge_clprim's rows.
CLPRIM_BENCH(merge_pairs_clprim)
{
    using namespace clprim_bench;
    auto& q = ctx.queue;
    for (const std::size_t n : ctx.sizes) {
        std::mt19937 rng(static_cast<unsigned>(n) ^ 0x5eedu);
        const std::size_t n1 = n / 2;
        std::vector<cl_uint> host(n), vals(n);
        for (auto& x : host) x = rng();
        for (std::size_t i = 0; i < n; ++i) vals[i] = cl_uint(i);
        std::vector<cl_uint> asc = host, desc = host;
        std::sort(asc.begin(), asc.begin() + n1);
        std::sort(asc.begin() + n1, asc.end());
        std::sort(desc.begin(), desc.begin() + n1, std::greater<cl_uint>());
        std::sort(desc.begin() + n1, desc.end(), std::greater<cl_uint>());
        std::vector<cl_uint> want_desc(n), want_keys(n), want_vals(n);
        std::merge(desc.begin(), desc.begin() + n1, desc.begin() + n1, desc.end(), want_desc.begin(), std::greater<cl_uint>());
        {
            std::vector<std::pair<cl_uint, cl_uint>> pa(n1), pb(n - n1), pw(n);
            for (std::size_t i = 0; i < n; ++i) (i < n1 ? pa[i] : pb[i - n1]) = {asc[i], cl_uint(i)};
            std::merge(pa.begin(), pa.end(), pb.begin(), pb.end(), pw.begin(),
                       [](const auto& x, const auto& y) { return x.first < y.first; });
            for (std::size_t i = 0; i < n; ++i) want_keys[i] = pw[i].first, want_vals[i] = pw[i].second;
        }
        bc::vector<cl_uint> dd(desc.begin(), desc.end(), q), da(asc.begin(), asc.end(), q), dv(vals.begin(), vals.end(), q),
            out(n, ctx.ctx), out_v(n, ctx.ctx);
        for (const auto& v : bench_variants()) {
            const auto knobs = apply_variant(v);
            bc::fill(out.begin(), out.end(), 0u, q);
            double ms = median_ms(
                q, [&] { clprim::merge(dd.begin(), dd.begin() + n1, dd.begin() + n1, dd.end(), out.begin(), q, clprim::sort_order::descending); },
                ctx.repeat);
            std::vector<cl_uint> got(n), got_v(n);
            bc::copy(out.begin(), out.end(), got.begin(), q);
            add_row(ctx, "merge", "desc " + variant_name(v), "uint", n, ms, 2.0 * n * sizeof(cl_uint), false, got == want_desc);
            ms = median_ms(q,
                           [&] {
                               clprim::merge_by_key(da.begin(), da.begin() + n1, dv.begin(), da.begin() + n1, da.end(), dv.begin() + n1,
                                                    out.begin(), out_v.begin(), q);
                           },
                           ctx.repeat);
            bc::copy(out.begin(), out.end(), got.begin(), q);
            bc::copy(out_v.begin(), out_v.end(), got_v.begin(), q);
            add_row(ctx, "merge_by_key", variant_name(v), "uint_uint", n, ms, 4.0 * n * sizeof(cl_uint), false,
                    got == want_keys && got_v == want_vals);
        }
    }
}

// Bench case "merge_search_profile" (diagnostic, prints to stdout, adds no rows): device time per
// kernel of merge, lower_bound and top_k (k = 100 and 2^20) on the same data as merge_search, so
// that a GPU run shows where each call's time goes (launches, the sort inside, the filter...).
CLPRIM_BENCH(merge_search_profile)
{
    using namespace clprim_bench;
    bc::command_queue q(ctx.ctx, ctx.device, CL_QUEUE_PROFILING_ENABLE);
    auto profile = [&](const char* what, std::size_t n, const std::function<void()>& run) {
        run(); // build and warm up
        q.finish();
        const int reps = std::max(1, ctx.repeat);
        clprim::detail::kernel_profile(true);
        for (int i = 0; i < reps; ++i) run();
        q.finish();
        const auto times = clprim::detail::kernel_profile_report();
        clprim::detail::kernel_profile(false);
        std::printf("%s n=%zu: kernels %.4f ms per call\n", what, n, kernel_ms_per_call(times, reps));
        print_kernel_times(times, reps);
    };
    for (const std::size_t n : ctx.sizes) {
        std::mt19937 rng(static_cast<unsigned>(n) ^ 0x5eedu);
        std::vector<cl_uint> host(n), queries(n);
        for (auto& x : host) x = rng();
        for (auto& x : queries) x = rng();
        std::vector<cl_uint> halves = host, sorted = host;
        std::sort(halves.begin(), halves.begin() + n / 2);
        std::sort(halves.begin() + n / 2, halves.end());
        std::sort(sorted.begin(), sorted.end());
        bc::vector<cl_uint> dh(halves.begin(), halves.end(), q), ds(sorted.begin(), sorted.end(), q),
            dq(queries.begin(), queries.end(), q), dr(host.begin(), host.end(), q), out(n, ctx.ctx);
        const std::size_t n1 = n / 2;
        for (const auto& v : bench_variants()) {
            const auto knobs = apply_variant(v);
            const std::string suffix = v.empty() ? " uint" : " uint [" + v + "]";
            profile(("merge" + suffix).c_str(), n,
                    [&] { clprim::merge(dh.begin(), dh.begin() + n1, dh.begin() + n1, dh.end(), out.begin(), q); });
            profile(("lower_bound" + suffix).c_str(), n,
                    [&] { clprim::lower_bound(ds.begin(), ds.end(), dq.begin(), dq.end(), out.begin(), q); });
        }
        for (std::size_t k : {std::size_t(100), std::size_t(1) << 20})
            if (k <= n)
                profile(k == 100 ? "top_k k100 uint" : "top_k k1048576 uint", n,
                        [&] { clprim::top_k(dr.begin(), dr.end(), k, out.begin(), q); });
    }
}

// Bench case "merge_build_info" (diagnostic, prints to stdout, adds no rows): the merge rounds'
// kernels as built for uint keys (public merge options, keys alone and with uint values) and what
// the driver says of them: work-group limit, private (spilled) and local memory per kernel, and
// on NVIDIA ptxas' register counts (-cl-nv-verbose). Run with CLPRIM_CACHE=off so that the
// program is compiled, not loaded. CLPRIM_MERGE_OPTIONS adds to the options (e.g. a register cap).
CLPRIM_BENCH(merge_build_info)
{
    namespace d = clprim::detail;
    namespace bc = boost::compute;
    const bool nvidia = d::profile_of(ctx.device).nvidia;
    const std::string extra = d::knob_text("CLPRIM_MERGE_OPTIONS").value_or("");
    for (const char* values : {"", " -DSORT_HAS_VALUES"}) {
        for (const char* elems : {"17", "11"}) {
            const std::string options = d::type_options(d::element_type::uint32, "K") +
                                        d::type_options(d::element_type::uint32, "V") + values +
                                        " -DMERGE_TWO_RANGES -DMERGE_PROBES=8 -DMERGE_SPLIT_PROBES=1 -DMERGE_SPLIT_ITEMS=1 -DMERGE_WALK_PROBES=256 -DMERGE_ELEMS=" +
                                        elems + " " + extra +
                                        (nvidia ? " -cl-nv-verbose" : "");
            const bc::program program =
                d::algorithms_program(ctx.ctx, {"sort_key_order.cl", "merge_sort.cl", "merge_path_search.cl", "merge_stream.cl", "merge_walk.cl"}, options);
            std::printf("== merge program, E=%s%s%s\n", elems, *values ? ", values" : "", extra.empty() ? "" : (", " + extra).c_str());
            for (const char* name : {"merge_stream", "merge_walk", "merge_global", "merge_partition", "merge_partition_search"}) {
                bc::kernel k = program.create_kernel(name);
                std::printf("  %-16s max wg %zu, private %llu B, local %llu B\n", name,
                            k.get_work_group_info<std::size_t>(ctx.device, CL_KERNEL_WORK_GROUP_SIZE),
                            (unsigned long long)k.get_work_group_info<cl_ulong>(ctx.device, CL_KERNEL_PRIVATE_MEM_SIZE),
                            (unsigned long long)k.get_work_group_info<cl_ulong>(ctx.device, CL_KERNEL_LOCAL_MEM_SIZE));
            }
            std::istringstream log(program.build_log());
            for (std::string line; std::getline(log, line);)
                if (line.find("registers") != std::string::npos || line.find("Compiling entry") != std::string::npos ||
                    line.find("spill") != std::string::npos)
                    std::printf("  %s\n", line.c_str());
        }
    }
}

// Bench case "segments": clprim::segmented_sort, segmented_sort_by_key (uint -> uint) and
// segmented_reduce (uint sum) over the layouts of issue #29: segments_32, segments_1024,
// segments_65536 (equal lengths), power_law (lengths 1 .. 2^20, P(len > x) ~ 1/x), one_huge
// (100 000 empty segments + one of n): segment_layouts.hpp. Beside them: one clprim sort /
// reduce of the whole range (`whole_range`, the floor the one_huge rows aim at). Results checked
// on the host (every segment in order, values with their keys, sums); segmented_reduce's
// `<layout>:x20` rows: 20 calls per clFinish, per call (the launch and wait hidden). The cases segments_sort
// and segments_reduce run the same rows of one family only (sort and sort_by_key, or reduce), so
// that one GPU request measures several knob settings of one family.
#include "bench_framework.hpp"
#include "segment_layouts.hpp"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace bc = boost::compute;


namespace {

void run_segments(clprim_bench::context& ctx, bool sorts, bool reduces)
{
    const char* layouts[] = {"segments_32", "segments_1024", "segments_65536", "power_law", "one_huge"};
    for (const std::size_t n : ctx.sizes) {
        std::vector<cl_uint> host(n);
        std::mt19937 rng{static_cast<unsigned>(n)};
        for (auto& x : host) x = rng();
        bc::vector<cl_uint> src(n, ctx.ctx), keys(n, ctx.ctx), values(n, ctx.ctx), vsrc(n, ctx.ctx);
        if (n) {
            bc::copy(host.begin(), host.end(), src.begin(), ctx.queue);
            std::vector<cl_uint> hv(n);
            for (std::size_t i = 0; i < n; ++i) hv[i] = host[i] ^ 0x5a5a5a5au;
            bc::copy(hv.begin(), hv.end(), vsrc.begin(), ctx.queue);
        }
        auto restore = [&] {
            if (n) bc::copy_async(src.begin(), src.end(), keys.begin(), ctx.queue);
            if (n) bc::copy_async(vsrc.begin(), vsrc.end(), values.begin(), ctx.queue);
        };
        auto add = [&](const char* group, const std::string& name, double ms, bool correct, bool sort) {
            clprim_bench::result r;
            r.group = group;
            r.name = name;
            r.type = "uint";
            r.n = n;
            r.ms = ms;
            if (sort) r.gkeys = ms > 0 ? double(n) / (ms * 1e6) : 0;
            else r.gbps = ms > 0 ? double(n) * sizeof(cl_uint) / (ms * 1e6) : 0;
            r.correct = correct;
            ctx.add(r);
        };
        for (const char* layout : layouts) {
            const auto offs = segment_layout_offsets(layout, n);
            const std::size_t S = offs.size() - 1;
            bc::vector<cl_uint> d_off(offs.size(), ctx.ctx), result(std::max<std::size_t>(S, 1), ctx.ctx);
            bc::copy(offs.begin(), offs.end(), d_off.begin(), ctx.queue);

            // Checks every segment is in order and (pairs) every value still with its key.
            auto check_sorted = [&](bool pairs) {
                std::vector<cl_uint> k(n), v(n);
                if (n) bc::copy(keys.begin(), keys.end(), k.begin(), ctx.queue);
                if (n && pairs) bc::copy(values.begin(), values.end(), v.begin(), ctx.queue);
                bool ok = true;
                for (std::size_t s = 0; s < S && ok; ++s)
                    for (std::size_t i = offs[s]; i + 1 < offs[s + 1]; ++i) ok = ok && k[i] <= k[i + 1];
                for (std::size_t i = 0; pairs && i < n && ok; ++i) ok = v[i] == (k[i] ^ 0x5a5a5a5au);
                return ok;
            };
            double ms = 0;
            if (sorts) {
                ms = clprim_examples::median_ms(
                    ctx.queue, restore,
                    [&] { clprim::segmented_sort(keys.begin(), keys.end(), d_off.begin(), d_off.end(), ctx.queue); },
                    ctx.repeat);
                add("segmented_sort", layout, ms, check_sorted(false), true);
                ms = clprim_examples::median_ms(
                    ctx.queue, restore,
                    [&] {
                        clprim::segmented_sort_by_key(keys.begin(), keys.end(), values.begin(), d_off.begin(),
                                                      d_off.end(), ctx.queue);
                    },
                    ctx.repeat);
                add("segmented_sort_by_key", layout, ms, check_sorted(true), true);
            }
            if (!reduces) continue;

            ms = clprim_examples::median_ms(
                ctx.queue,
                [&] {
                    clprim::segmented_reduce(src.begin(), src.end(), d_off.begin(), d_off.end(), result.begin(), ctx.queue);
                },
                ctx.repeat);
            std::vector<cl_uint> got(S);
            if (S) bc::copy(result.begin(), result.begin() + S, got.begin(), ctx.queue);
            bool ok = true;
            for (std::size_t s = 0; s < S && ok; ++s) {
                cl_uint sum = 0;
                for (std::size_t i = offs[s]; i < offs[s + 1]; ++i) sum += host[i];
                ok = got[s] == sum;
            }
            add("segmented_reduce", layout, ms, ok, false);
            // The same call 20 times, then one clFinish, per call: the launch and the wait hidden
            // behind the next call, as CUDA-event timings of CUB (bench/cuda_reference) see a call.
            ms = clprim_examples::median_ms(
                ctx.queue,
                [&] {
                    for (int i = 0; i < 20; ++i)
                        clprim::segmented_reduce(src.begin(), src.end(), d_off.begin(), d_off.end(), result.begin(),
                                                 ctx.queue);
                },
                std::max(3, ctx.repeat / 2));
            add("segmented_reduce", std::string(layout) + ":x20", ms / 20, ok, false);
        }
        // The floor: one sort / sort_by_key / reduce of the whole range.
        double ms = 0;
        if (sorts) {
            ms = clprim_examples::median_ms(
                ctx.queue, restore, [&] { clprim::sort(keys.begin(), keys.end(), ctx.queue); }, ctx.repeat);
            std::vector<cl_uint> sorted(n);
            if (n) bc::copy(keys.begin(), keys.end(), sorted.begin(), ctx.queue);
            add("segmented_sort", "whole_range", ms, std::is_sorted(sorted.begin(), sorted.end()), true);
            ms = clprim_examples::median_ms(
                ctx.queue, restore, [&] { clprim::sort_by_key(keys.begin(), keys.end(), values.begin(), ctx.queue); },
                ctx.repeat);
            add("segmented_sort_by_key", "whole_range", ms, true, true);
        }
        if (!reduces) continue;
        bc::vector<cl_uint> one(1, ctx.ctx);
        ms = clprim_examples::median_ms(
            ctx.queue, [&] { clprim::reduce(src.begin(), src.end(), one.begin(), ctx.queue); }, ctx.repeat);
        add("segmented_reduce", "whole_range", ms, true, false);
    }
}

// Bench case "segments_alternatives" (#29's PoCL comparison): the segmented sort of segments_32,
// segments_1024, segments_4096 and segments_65536 against the two ways a user has without it: one clprim::sort call per segment
// (on sub-ranges, one clFinish at the end), and one sort of (segment << 32 | key) 64-bit keys
// (only the 64-bit sort is timed: packing and unpacking are left out, in the alternative's favour).
void run_segments_alternatives(clprim_bench::context& ctx)
{
    for (const std::size_t n : ctx.sizes) {
        std::vector<cl_uint> host(n);
        std::mt19937 rng{static_cast<unsigned>(n)};
        for (auto& x : host) x = rng();
        bc::vector<cl_uint> src(n, ctx.ctx), keys(n, ctx.ctx);
        if (n) bc::copy(host.begin(), host.end(), src.begin(), ctx.queue);
        auto restore = [&] { if (n) bc::copy_async(src.begin(), src.end(), keys.begin(), ctx.queue); };
        for (const char* layout : {"segments_32", "segments_1024", "segments_4096", "segments_65536"}) {
            const auto offs = segment_layout_offsets(layout, n);
            const std::size_t S = offs.size() - 1;
            bc::vector<cl_uint> d_off(offs.size(), ctx.ctx);
            bc::copy(offs.begin(), offs.end(), d_off.begin(), ctx.queue);
            auto sorted_ok = [&] {
                std::vector<cl_uint> k(n);
                if (n) bc::copy(keys.begin(), keys.end(), k.begin(), ctx.queue);
                for (std::size_t s = 0; s < S; ++s)
                    if (!std::is_sorted(k.begin() + offs[s], k.begin() + offs[s + 1])) return false;
                return true;
            };
            auto add = [&](const std::string& name, double ms, bool ok) {
                clprim_bench::result r;
                r.group = "segmented_sort";
                r.name = name;
                r.type = "uint";
                r.n = n;
                r.ms = ms;
                r.gkeys = ms > 0 ? double(n) / (ms * 1e6) : 0;
                r.correct = ok;
                ctx.add(r);
            };
            double ms = clprim_examples::median_ms(
                ctx.queue, restore,
                [&] { clprim::segmented_sort(keys.begin(), keys.end(), d_off.begin(), d_off.end(), ctx.queue); },
                ctx.repeat);
            add(layout, ms, sorted_ok());
            ms = clprim_examples::median_ms(
                ctx.queue, restore,
                [&] {
                    for (std::size_t s = 0; s < S; ++s)
                        clprim::sort(keys.begin() + offs[s], keys.begin() + offs[s + 1], ctx.queue);
                },
                std::max(3, ctx.repeat / 3));
            add(std::string(layout) + ":call_per_segment", ms, sorted_ok());
            std::vector<cl_ulong> packed(n);
            for (std::size_t s = 0; s < S; ++s)
                for (std::size_t i = offs[s]; i < offs[s + 1]; ++i) packed[i] = (cl_ulong(s) << 32) | host[i];
            bc::vector<cl_ulong> psrc(n, ctx.ctx), pkeys(n, ctx.ctx);
            if (n) bc::copy(packed.begin(), packed.end(), psrc.begin(), ctx.queue);
            ms = clprim_examples::median_ms(
                ctx.queue, [&] { if (n) bc::copy_async(psrc.begin(), psrc.end(), pkeys.begin(), ctx.queue); },
                [&] { clprim::sort(pkeys.begin(), pkeys.end(), ctx.queue); }, ctx.repeat);
            std::vector<cl_ulong> back(n);
            if (n) bc::copy(pkeys.begin(), pkeys.end(), back.begin(), ctx.queue);
            add(std::string(layout) + ":pairs_sort_64bit", ms, std::is_sorted(back.begin(), back.end()));
        }
    }
}

} // namespace

CLPRIM_BENCH(segments) { run_segments(ctx, true, true); }
CLPRIM_BENCH(segments_sort) { run_segments(ctx, true, false); }
CLPRIM_BENCH(segments_reduce) { run_segments(ctx, false, true); }
CLPRIM_BENCH(segments_alternatives) { run_segments_alternatives(ctx); }

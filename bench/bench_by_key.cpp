// Bench case "by_key": the by-key and selection family beside Boost.Compute, uint keys in runs of
// uniformly random length 1..15, uint values, at each size. Rows (group / name):
//   reduce_by_key          clprim / boost_compute (bc::reduce_by_key)
//   exclusive_scan_by_key  clprim (Boost.Compute has no scan by key)
//   unique                 clprim / boost_compute (bc::unique_copy)
//   run_length_encode      clprim (none in Boost.Compute)
//   partition_copy         clprim / boost_compute (bc::partition_copy), keeping the odd values (half)
//   stable_partition       clprim / boost_compute (bc::stable_partition), the same predicate
//   min_element            clprim / boost_compute (bc::min_element), random uint
// and clprim_device_count rows for reduce_by_key and unique: the count_result overloads (the
// count stays on the device, no read back; the bench waits for the queue).
// Effective bandwidth: the bytes the operation must read and write / time. Every result is
// checked on the host (the `correct` column).
#include "bench_framework.hpp"
#include "bench_variants.hpp"

#include <boost/compute/algorithm/min_element.hpp>
#include <boost/compute/algorithm/partition_copy.hpp>
#include <boost/compute/algorithm/reduce_by_key.hpp>
#include <boost/compute/algorithm/stable_partition.hpp>
#include <boost/compute/algorithm/unique_copy.hpp>
#include <boost/compute/function.hpp>

#include <clprim/detail/knobs.hpp>

#include <algorithm>
#include <functional>
#include <memory>
#include <random>
#include <sstream>

namespace bc = boost::compute;

namespace {
BOOST_COMPUTE_FUNCTION(bool, by_key_bench_odd, (cl_uint x), { return (x & 1u) != 0; });

std::vector<cl_uint> keys_in_runs(std::size_t n, std::mt19937& rng)
{
    std::vector<cl_uint> keys(n);
    cl_uint key = 0;
    for (std::size_t i = 0; i < n;) {
        const std::size_t len = 1 + rng() % 15;
        key += 1 + rng() % 4; // every run a new key
        for (std::size_t j = 0; j < len && i < n; ++j) keys[i++] = key;
    }
    return keys;
}
// The inputs of n elements (keys in runs, values below 1000) and the host's results for them:
// reduce_by_key's keys (rk) and sums (rv), the run lengths (rc), the exclusive sum scan by key
// (scan), the odd and the even values in order.
struct host_reference {
    std::vector<cl_uint> keys, vals, rk, rv, rc, scan, odd, even;
    host_reference(std::size_t n, std::mt19937& rng) : keys(keys_in_runs(n, rng)), vals(n), scan(n)
    {
        for (auto& v : vals) v = rng() % 1000;
        for (std::size_t i = 0; i < keys.size(); ++i) {
            const bool head = i == 0 || keys[i] != keys[i - 1];
            if (head) {
                rk.push_back(keys[i]);
                rv.push_back(vals[i]);
                rc.push_back(1);
            } else {
                rv.back() += vals[i];
                rc.back() += 1;
            }
            scan[i] = head ? 0u : scan[i - 1] + vals[i - 1];
            (vals[i] & 1u ? odd : even).push_back(vals[i]);
        }
    }
};
} // namespace

namespace {
// baselines: the Boost.Compute rows too (case by_key); without them (case by_key_clprim) a run
// comparing clprim's variants (CLPRIM_BY_KEY_KERNEL, _TUNE, _OPTIONS) takes a fraction of the time.
void by_key_rows(clprim_bench::context& ctx, bool baselines)
{
    // CLPRIM_BY_KEY_SWEEP="KNOB=VALUE KNOB=VALUE;...": the clprim rows once per variant (knobs set
    // in-process, the inputs made once), named clprim[KNOB=VALUE+...] (commas as x); unset: the
    // defaults once.
    std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::string>>>> sweep;
    if (const auto text = clprim::detail::knob_text("CLPRIM_BY_KEY_SWEEP")) {
        std::stringstream variants(*text);
        for (std::string v; std::getline(variants, v, ';');) {
            std::vector<std::pair<std::string, std::string>> kvs;
            std::stringstream words(v);
            for (std::string w; words >> w;) {
                const auto eq = w.find('=');
                if (eq != std::string::npos) kvs.emplace_back(w.substr(0, eq), w.substr(eq + 1));
            }
            std::string label = "clprim[" + v + "]"; // CSV-safe: no commas, no spaces
            std::replace(label.begin(), label.end(), ',', 'x');
            std::replace(label.begin(), label.end(), ' ', '+');
            sweep.emplace_back(label, kvs);
        }
    }
    if (sweep.empty()) sweep.emplace_back("clprim", std::vector<std::pair<std::string, std::string>>{});
    for (const std::size_t n : ctx.sizes) {
        std::mt19937 rng(static_cast<unsigned>(n) ^ 0x5eedu);
        const host_reference ref(n, rng);
        const std::vector<cl_uint>&keys = ref.keys, &vals = ref.vals;
        const std::vector<cl_uint>&rk = ref.rk, &rv = ref.rv, &rc = ref.rc, &scan = ref.scan, &odd = ref.odd,
                                   &even = ref.even;
        bc::vector<cl_uint> dk(n, ctx.ctx), dv(n, ctx.ctx), ok(std::max<std::size_t>(n, 1), ctx.ctx),
            ov(std::max<std::size_t>(n, 1), ctx.ctx), oc(std::max<std::size_t>(n, 1), ctx.ctx);
        bc::vector<cl_ulong> dcount(1, ctx.ctx);
        if (n) {
            bc::copy(keys.begin(), keys.end(), dk.begin(), ctx.queue);
            bc::copy(vals.begin(), vals.end(), dv.begin(), ctx.queue);
        }
        ctx.queue.finish();
        auto add = [&](const char* group, const char* name, double ms, double bytes, bool correct) {
            clprim_bench::result r;
            r.group = group;
            r.name = name;
            r.type = "uint";
            r.n = n;
            r.ms = ms;
            r.gbps = ms > 0 ? bytes / (ms * 1e6) : 0;
            r.baseline = std::string(name) == "boost_compute";
            r.correct = correct;
            ctx.add(r);
        };
        auto prefix = [&](const auto& d, std::size_t count) {
            std::vector<typename std::decay_t<decltype(d)>::value_type> h(count);
            if (count) bc::copy(d.begin(), d.begin() + count, h.begin(), ctx.queue);
            return h;
        };
        const double word = sizeof(cl_uint);
        const double runs = double(rk.size());
        // One pass of clprim rows per variant of the sweep (the plain defaults without one).
        bool first = true;
        for (const auto& variant : sweep) {
            std::vector<std::unique_ptr<clprim::detail::scoped_knob>> knobs;
            for (const auto& kv : variant.second)
                knobs.push_back(std::make_unique<clprim::detail::scoped_knob>(kv.first.c_str(), kv.second));
            const std::string label = variant.first;

            // reduce_by_key: read keys and values, write a key and a value per run.
            {
                std::size_t count = 0;
                const double bytes = 2 * n * word + 2 * runs * word;
                if (baselines && first) {
                    const double bc_ms = clprim_bench::median_ms(ctx.queue, [&] {
                        count = std::size_t(bc::reduce_by_key(dk.begin(), dk.end(), dv.begin(), ok.begin(), ov.begin(), ctx.queue)
                                                .first - ok.begin());
                    }, ctx.repeat);
                    add("reduce_by_key", "boost_compute", bc_ms, bytes, count == rk.size() && prefix(ov, count) == rv);
                }
                const double ms = clprim_bench::median_ms(ctx.queue, [&] {
                    count = clprim::reduce_by_key(dk.begin(), dk.end(), dv.begin(), ok.begin(), ov.begin(), ctx.queue);
                }, ctx.repeat);
                add("reduce_by_key", label.c_str(), ms, bytes, count == rk.size() && prefix(ok, count) == rk && prefix(ov, count) == rv);
                const double dc_ms = clprim_bench::median_ms(ctx.queue, [&] {
                    clprim::reduce_by_key(dk.begin(), dk.end(), dv.begin(), ok.begin(), ov.begin(), dcount.begin(), ctx.queue);
                }, ctx.repeat);
                add("reduce_by_key", (label + "_device_count").c_str(), dc_ms, bytes, prefix(dcount, 1)[0] == cl_ulong(rk.size()));
            }
            // exclusive_scan_by_key: read keys and values, write n values.
            {
                const double ms = clprim_bench::median_ms(ctx.queue, [&] {
                    clprim::exclusive_scan_by_key(dk.begin(), dk.end(), dv.begin(), ov.begin(), ctx.queue);
                }, ctx.repeat);
                add("exclusive_scan_by_key", label.c_str(), ms, 3 * n * word, prefix(ov, n) == scan);
            }
            // unique: read n keys, write one per run.
            {
                std::size_t count = 0;
                const double bytes = n * word + runs * word;
                if (baselines && first) {
                    const double bc_ms = clprim_bench::median_ms(ctx.queue, [&] {
                        count = std::size_t(bc::unique_copy(dk.begin(), dk.end(), ok.begin(), ctx.queue) - ok.begin());
                    }, ctx.repeat);
                    add("unique", "boost_compute", bc_ms, bytes, count == rk.size() && prefix(ok, count) == rk);
                }
                const double ms = clprim_bench::median_ms(ctx.queue, [&] {
                    count = clprim::unique(dk.begin(), dk.end(), ok.begin(), ctx.queue);
                }, ctx.repeat);
                add("unique", label.c_str(), ms, bytes, count == rk.size() && prefix(ok, count) == rk);
                const double dc_ms = clprim_bench::median_ms(ctx.queue, [&] {
                    clprim::unique(dk.begin(), dk.end(), ok.begin(), dcount.begin(), ctx.queue);
                }, ctx.repeat);
                add("unique", (label + "_device_count").c_str(), dc_ms, bytes, prefix(dcount, 1)[0] == cl_ulong(rk.size()));
            }
            // run_length_encode: read n keys, write a key and a length per run.
            {
                std::size_t count = 0;
                const double ms = clprim_bench::median_ms(ctx.queue, [&] {
                    count = clprim::run_length_encode(dk.begin(), dk.end(), ok.begin(), oc.begin(), ctx.queue);
                }, ctx.repeat);
                add("run_length_encode", label.c_str(), ms, n * word + 2 * runs * word,
                    count == rk.size() && prefix(ok, count) == rk && prefix(oc, count) == rc);
            }
            // partition_copy keeping the odd values (about half): read n, write n.
            {
                std::size_t count = 0;
                const double bytes = 2 * n * word;
                if (baselines && first) {
                    const double bc_ms = clprim_bench::median_ms(ctx.queue, [&] {
                        count = std::size_t(bc::partition_copy(dv.begin(), dv.end(), ok.begin(), ov.begin(), by_key_bench_odd, ctx.queue)
                                                .first - ok.begin());
                    }, ctx.repeat);
                    add("partition_copy", "boost_compute", bc_ms, bytes, count == odd.size() && prefix(ok, count) == odd);
                }
                const double ms = clprim_bench::median_ms(ctx.queue, [&] {
                    count = clprim::partition_copy(dv.begin(), dv.end(), ok.begin(), ov.begin(), ctx.queue, by_key_bench_odd);
                }, ctx.repeat);
                add("partition_copy", label.c_str(), ms, bytes,
                    count == odd.size() && prefix(ok, count) == odd && prefix(ov, n - count) == even);
            }
            // stable_partition in place (the input restored, untimed, before each call).
            {
                std::vector<cl_uint> expected = odd;
                expected.insert(expected.end(), even.begin(), even.end());
                auto restore = [&] {
                    if (n) bc::copy(dv.begin(), dv.end(), ov.begin(), ctx.queue);
                };
                const double bytes = 2 * n * word;
                if (baselines && first) {
                    const double bc_ms = clprim_bench::median_ms(ctx.queue, restore, [&] {
                        bc::stable_partition(ov.begin(), ov.begin() + n, by_key_bench_odd, ctx.queue);
                    }, ctx.repeat);
                    add("stable_partition", "boost_compute", bc_ms, bytes, prefix(ov, n) == expected);
                }
                const double ms = clprim_bench::median_ms(ctx.queue, restore, [&] {
                    clprim::stable_partition(ov.begin(), ov.begin() + n, ctx.queue, by_key_bench_odd);
                }, ctx.repeat);
                add("stable_partition", label.c_str(), ms, bytes, prefix(ov, n) == expected);
            }
            // min_element of random uint (n >= 1).
            if (n > 0) {
                std::vector<cl_uint> r(n);
                for (auto& x : r) x = rng();
                const std::size_t expected = std::size_t(std::min_element(r.begin(), r.end()) - r.begin());
                bc::copy(r.begin(), r.end(), ov.begin(), ctx.queue);
                std::size_t at = 0;
                if (baselines && first) {
                    const double bc_ms = clprim_bench::median_ms(ctx.queue, [&] {
                        at = std::size_t(bc::min_element(ov.begin(), ov.begin() + n, ctx.queue) - ov.begin());
                    }, ctx.repeat);
                    add("min_element", "boost_compute", bc_ms, n * word, at == expected);
                }
                const double ms = clprim_bench::median_ms(ctx.queue, [&] {
                    at = clprim::min_element(ov.begin(), ov.begin() + n, ctx.queue);
                }, ctx.repeat);
                add("min_element", label.c_str(), ms, n * word, at == expected);
            }
            first = false;
        }
    }
}
} // namespace

CLPRIM_BENCH(by_key) { by_key_rows(ctx, true); }
CLPRIM_BENCH(by_key_clprim) { by_key_rows(ctx, false); }

// Bench case "by_key_profile": the pair modes' single pass (reduce_by_key, exclusive_scan_by_key,
// run_length_encode) and partition_copy, which shares its kernel, per variant of
// CLPRIM_BENCH_VARIANTS (bench_variants.hpp: "KNOB=value ...;..."): wall time per call (median)
// and the kernels' device time per call from a profiling queue, one line each; rows named
// <variant> and <variant>_kernel. Diagnostic variants (CLPRIM_BY_KEY_OPTIONS=-DBK_DIAG=...) give
// wrong results by design: the `correct` column says so.
CLPRIM_BENCH(by_key_profile)
{
    bc::command_queue pq(ctx.ctx, ctx.device, bc::command_queue::enable_profiling);
    for (const std::size_t n : ctx.sizes) {
        std::mt19937 rng(static_cast<unsigned>(n) ^ 0x5eedu);
        const host_reference ref(n, rng);
        const std::vector<cl_uint>&keys = ref.keys, &vals = ref.vals;
        const std::vector<cl_uint>&rk = ref.rk, &rv = ref.rv, &rc = ref.rc, &scan = ref.scan;
        const std::size_t odd = ref.odd.size();
        const std::size_t m = std::max<std::size_t>(n, 1);
        bc::vector<cl_uint> dk(m, ctx.ctx), dv(m, ctx.ctx), ok(m, ctx.ctx), ov(m, ctx.ctx);
        if (n) {
            bc::copy(keys.begin(), keys.end(), dk.begin(), pq);
            bc::copy(vals.begin(), vals.end(), dv.begin(), pq);
        }
        pq.finish();
        auto prefix = [&](const bc::vector<cl_uint>& d, std::size_t count) {
            std::vector<cl_uint> h(count);
            if (count) bc::copy(d.begin(), d.begin() + count, h.begin(), pq);
            return h;
        };
        const double word = sizeof(cl_uint), runs = double(rk.size());
        for (const std::string& variant : clprim_bench::bench_variants()) {
            const auto knobs = clprim_bench::apply_variant(variant);
            const std::string label = clprim_bench::variant_name(variant);
            auto row = [&](const char* group, const std::function<void()>& run, double bytes,
                           const std::function<bool()>& check) {
                const clprim_bench::call_profile p = clprim_bench::profile_calls(pq, run, ctx.repeat);
                const bool correct = check();
                std::printf("by_key_profile %-22s n=%-9zu wall %.4f ms kernel %.4f ms %s  %s\n", group, n, p.wall_ms,
                            p.kernel_ms, correct ? "ok" : "WRONG", label.c_str());
                ctx.add_bytes_row(group, label, "uint", n, p.wall_ms, bytes, correct);
                ctx.add_bytes_row(group, label + "_kernel", "uint", n, p.kernel_ms, bytes, correct);
            };
            std::size_t count = 0;
            row("reduce_by_key",
                [&] { count = clprim::reduce_by_key(dk.begin(), dk.begin() + n, dv.begin(), ok.begin(), ov.begin(), pq); },
                2 * n * word + 2 * runs * word,
                [&] { return count == rk.size() && prefix(ok, count) == rk && prefix(ov, count) == rv; });
            row("exclusive_scan_by_key",
                [&] { clprim::exclusive_scan_by_key(dk.begin(), dk.begin() + n, dv.begin(), ov.begin(), pq); },
                3 * n * word, [&] { return prefix(ov, n) == scan; });
            row("run_length_encode",
                [&] { count = clprim::run_length_encode(dk.begin(), dk.begin() + n, ok.begin(), ov.begin(), pq); },
                n * word + 2 * runs * word,
                [&] { return count == rk.size() && prefix(ok, count) == rk && prefix(ov, count) == rc; });
            row("partition_copy",
                [&] {
                    count = clprim::partition_copy(dv.begin(), dv.begin() + n, ok.begin(), ov.begin(), pq, by_key_bench_odd);
                },
                2 * n * word, [&] { return count == odd; });
        }
    }
}

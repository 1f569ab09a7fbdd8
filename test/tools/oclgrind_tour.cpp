// oclgrind_tour: every clprim primitive and every path it can take, at small n, each result
// checked against the host. Made to run under Oclgrind's simulated device, which reports data
// races, out-of-bounds accesses and uninitialised reads per kernel:
//     oclgrind --data-races --uninitialized --check-api build/test/oclgrind_tour 2> report.txt
// Each step writes "== step" to stderr before it runs, so every report in the log sits under the
// call that caused it; scripts/oclgrind_report.sh summarises the log per step and kernel.
// Exit status: 0 all results right, 1 otherwise.
#include <clprim/clprim.hpp>

#include <boost/compute/functional.hpp>
#include <boost/compute/lambda.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace bc = boost::compute;

namespace {

int failures = 0;
std::vector<std::string> only; // step-name prefixes from the command line (none: every step)
bool listing = false;          // --list: print the step names, run nothing

// Runs one step, announced on both streams, unless the command line leaves it out.
template <class F>
void step(const std::string& name, F body)
{
    if (!only.empty() && std::none_of(only.begin(), only.end(), [&](const std::string& p) { return name.rfind(p, 0) == 0; }))
        return;
    if (listing) {
        std::printf("%s\n", name.c_str());
        return;
    }
    std::fprintf(stderr, "\n== %s\n", name.c_str());
    std::fflush(stderr);
    std::printf("%s\n", name.c_str());
    std::fflush(stdout);
    // A step that throws (Oclgrind cannot create a kernel that uses an LLVM intrinsic it lacks,
    // say) counts as wrong; the steps after it still run.
    try {
        body();
    } catch (const std::exception& e) {
        ++failures;
        std::printf("  EXCEPTION: %s\n", e.what());
        std::fflush(stdout);
    }
}

void check(bool ok, const std::string& what)
{
    if (!ok) {
        ++failures;
        std::printf("  WRONG: %s\n", what.c_str());
    }
}

// Sets (or with value nullptr, unsets) a knob for the scope.
struct knob {
    std::string name;
    knob(const char* n, const char* value) : name(n)
    {
        if (value) ::setenv(n, value, 1);
        else ::unsetenv(n);
    }
    ~knob() { ::unsetenv(name.c_str()); }
};

template <class T>
std::vector<T> tour_data(std::size_t n, unsigned seed, T mod)
{
    std::mt19937 rng(seed);
    std::vector<T> v(n);
    for (auto& x : v) x = T(rng() % mod);
    return v;
}

template <class T>
std::vector<T> host(const bc::vector<T>& d, bc::command_queue& q)
{
    std::vector<T> h(d.size());
    if (!h.empty()) bc::copy(d.begin(), d.end(), h.begin(), q);
    q.finish();
    return h;
}

template <class T>
void scans(bc::command_queue& q, std::size_t n, const char* label)
{
    const auto data = tour_data<T>(n, 7, T(100));
    std::vector<T> ex(n), in(n), mx(n);
    T acc = 0, m = 0;
    for (std::size_t i = 0; i < n; ++i) {
        ex[i] = acc;
        acc += data[i];
        in[i] = acc;
        m = std::max(m, data[i]);
        mx[i] = m;
    }
    bc::vector<T> d(data.begin(), data.end(), q);
    clprim::exclusive_scan(d.begin(), d.end(), d.begin(), q);
    check(host(d, q) == ex, std::string(label) + " exclusive sum");
    bc::copy(data.begin(), data.end(), d.begin(), q);
    clprim::inclusive_scan(d.begin(), d.end(), d.begin(), q);
    check(host(d, q) == in, std::string(label) + " inclusive sum");
    bc::copy(data.begin(), data.end(), d.begin(), q);
    clprim::inclusive_scan(d.begin(), d.end(), d.begin(), q, bc::max<T>(), T(0));
    check(host(d, q) == mx, std::string(label) + " inclusive max");
}

template <class K>
void sort_keys_and_pairs(bc::command_queue& q, std::size_t n, clprim::sort_algorithm algorithm, const std::string& label)
{
    auto keys = tour_data<K>(n, 3, K(1000));
    std::vector<cl_uint> values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = cl_uint(i);
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
    std::vector<K> sorted(n);
    std::vector<cl_uint> sorted_values(n);
    for (std::size_t i = 0; i < n; ++i) {
        sorted[i] = keys[order[i]];
        sorted_values[i] = cl_uint(order[i]);
    }
    bc::vector<K> d(keys.begin(), keys.end(), q);
    clprim::sort(d.begin(), d.end(), q, algorithm);
    check(host(d, q) == sorted, label + " keys");
    const bool stable = algorithm == clprim::sort_algorithm::radix || algorithm == clprim::sort_algorithm::merge;
    if (!stable) return;
    bc::copy(keys.begin(), keys.end(), d.begin(), q);
    bc::vector<cl_uint> v(values.begin(), values.end(), q);
    clprim::sort_by_key(d.begin(), d.end(), v.begin(), q, algorithm);
    check(host(d, q) == sorted && host(v, q) == sorted_values, label + " pairs");
}

// uint keys with 16-byte values (issue #30): the values' bytes arrive unchanged, stably.
void sort_vector_values(bc::command_queue& q, std::size_t n, const std::string& label)
{
    auto keys = tour_data<cl_uint>(n, 4, 300);
    std::vector<bc::uint4_> values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = bc::uint4_(cl_uint(i), cl_uint(i * 7), 0xdeadbeefu, cl_uint(~i));
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
    bc::vector<cl_uint> d(keys.begin(), keys.end(), q);
    bc::vector<bc::uint4_> v(values.begin(), values.end(), q);
    clprim::sort_by_key(d.begin(), d.end(), v.begin(), q);
    const auto hv = host(v, q);
    bool ok = true;
    for (std::size_t i = 0; i < n && ok; ++i) ok = hv[i] == values[order[i]];
    check(ok, label + " uint4 values");
}

} // namespace

int main(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        if (std::string(argv[i]) == "--list") listing = true;
        else only.push_back(argv[i]);
    }
    try {
        bc::device device = clprim::default_device();
        bc::context context(device);
        bc::command_queue q(context, device);
        if (!listing) std::printf("oclgrind_tour on %s (%s)\n", device.name().c_str(), device.platform().name().c_str());
        // Several tiles of the small shapes below and a partial last tile; TOUR_N overrides it.
        const std::size_t n = std::getenv("TOUR_N") ? std::strtoul(std::getenv("TOUR_N"), nullptr, 10) : 1500;

        using rv = clprim::reduce_variant;
        const auto rdata = tour_data<cl_uint>(n, 1, 1000);
        cl_uint rsum = 0, rmax = 0;
        for (cl_uint x : rdata) {
            rsum += x;
            rmax = std::max(rmax, x);
        }
        bc::vector<cl_uint> rd(rdata.begin(), rdata.end(), q);
        const std::pair<rv, const char*> variants[] = {{rv::reduce0, "reduce0"}, {rv::reduce1, "reduce1"}, {rv::reduce2, "reduce2"},
                                                       {rv::reduce3, "reduce3"}, {rv::reduce4, "reduce4"}, {rv::reduce5, "reduce5"},
                                                       {rv::reduce6, "reduce6"}, {rv::fast, "fast"}};
        for (const auto& v : variants)
            step(std::string("reduce ") + v.second, [&] {
                check(clprim::reduce(rd.begin(), rd.end(), q, clprim::reduce_op::sum, v.first) == rsum, v.second);
            });
        step("reduce operator (bc::max)", [&] {
            check(clprim::reduce(rd.begin(), rd.end(), q, bc::max<cl_uint>(), cl_uint(0)) == rmax, "reduce max");
        });
        step("reduce to a device result", [&] {
            bc::vector<cl_uint> r(1, context);
            clprim::reduce(rd.begin(), rd.end(), r.begin(), q, clprim::reduce_op::sum);
            check(host(r, q)[0] == rsum, "reduce device result");
        });

        for (const char* path : {"lookback", "chunks", "tiles"}) {
            knob p("CLPRIM_SCAN_PATH", path), items("CLPRIM_SCAN_ITEMS", "2");
            step(std::string("scan path ") + path + " uint", [&] { scans<cl_uint>(q, n, path); });
            step(std::string("scan path ") + path + " ulong", [&] { scans<cl_ulong>(q, n, path); });
        }
        for (auto a : {clprim::scan_algorithm::hillis_steele, clprim::scan_algorithm::blelloch})
            step(a == clprim::scan_algorithm::blelloch ? "scan blelloch" : "scan hillis_steele", [&] {
                const auto data = tour_data<cl_uint>(n, 2, 50);
                std::vector<cl_uint> ex(n);
                cl_uint acc = 0;
                for (std::size_t i = 0; i < n; ++i) {
                    ex[i] = acc;
                    acc += data[i];
                }
                bc::vector<cl_uint> d(data.begin(), data.end(), q), out(n, context);
                clprim::exclusive_scan(d.begin(), d.end(), out.begin(), q, cl_uint(0), a);
                check(host(out, q) == ex, "textbook scan");
            });

        step("histogram uint", [&] {
            const auto data = tour_data<cl_uint>(n, 4, 1000);
            std::vector<cl_uint> expected(37, 0);
            for (cl_uint x : data) expected[x * 37 / 1000]++;
            // Zeroed by a write, not a fill: Oclgrind's checker does not see what a fill stores
            // (oclgrind_fill_repro).
            const std::vector<cl_uint> zeros(37, 0);
            bc::vector<cl_uint> d(data.begin(), data.end(), q), counts(zeros.begin(), zeros.end(), q);
            clprim::histogram(d.begin(), d.end(), counts.begin(), 37, cl_uint(0), cl_uint(1000), q);
            check(host(counts, q) == expected, "histogram");
        });

        auto copy_if_step = [&] {
            const auto data = tour_data<cl_uint>(n, 5, 1000);
            std::vector<cl_uint> expected;
            std::copy_if(data.begin(), data.end(), std::back_inserter(expected), [](cl_uint x) { return x > 500; });
            bc::vector<cl_uint> d(data.begin(), data.end(), q), out(n, context);
            using bc::lambda::_1;
            const std::size_t count = clprim::copy_if(d.begin(), d.end(), out.begin(), q, _1 > 500u);
            auto h = host(out, q);
            h.resize(count);
            check(h == expected, "copy_if");
        };
        for (const char* path : {"lookback", "chunks"}) {
            knob p("CLPRIM_SCAN_PATH", path), items("CLPRIM_SCAN_ITEMS", "2"), three("CLPRIM_COPY_IF_PATH", "three_pass");
            step(std::string("copy_if (count scan ") + path + ")", copy_if_step);
        }
        // The single-pass copy_if (many 96-element tiles), waiting and with every tile's fallback.
        for (const char* lookback : {"wait", "fallback"}) {
            knob p("CLPRIM_COPY_IF_PATH", "single_pass"), tune("CLPRIM_COPY_IF_TUNE", "32,3"), lb("CLPRIM_LOOKBACK", lookback);
            step(std::string("copy_if single_pass ") + lookback, copy_if_step);
        }
        // The single pass's variants: 256-element tiles of 32 x 8 (16-byte loads), compacting
        // through positions, in place or by rows, tiles by group id, waiting and with every tile's fallback.
        for (const char* compact : {"gather", "in_place", "rows"})
            for (const char* lookback : {"wait", "fallback"}) {
                knob p("CLPRIM_COPY_IF_PATH", "single_pass"), tune("CLPRIM_COPY_IF_TUNE", "32,8"), lb("CLPRIM_LOOKBACK", lookback),
                    c("CLPRIM_COPY_IF_COMPACT", compact), o("CLPRIM_COPY_IF_ORDER", "group");
                step(std::string("copy_if single_pass vec group ") + compact + " " + lookback, copy_if_step);
            }

        // The one-work-group copy_if (copy_if_small.cl), groups of 256 and of 64 (32 rows of 64
        // hold 2048 elements: the tour's default n, 1500).
        for (const char* shape : {"4096", "4096,64"}) {
            knob small("CLPRIM_COPY_IF_SMALL", shape);
            step(std::string("copy_if small ") + shape, copy_if_step);
        }
        // unique and partition_copy through it (CS_UNIQUE, CS_PARTITION).
        {
            knob u("CLPRIM_UNIQUE_PATH", "copy_if"), p("CLPRIM_PARTITION_PATH", "copy_if");
            step("copy_if small unique and partition", [&] {
                const std::size_t m = std::min<std::size_t>(n, 4096);
                auto data = tour_data<cl_uint>(m, 9, 50);
                std::sort(data.begin(), data.begin() + m / 2); // runs in the first half
                std::vector<cl_uint> runs, kept, others;
                for (std::size_t i = 0; i < m; ++i)
                    if (i == 0 || data[i] != data[i - 1]) runs.push_back(data[i]);
                for (cl_uint x : data) (x > 25 ? kept : others).push_back(x);
                bc::vector<cl_uint> d(data.begin(), data.end(), q), o1(m, context), o2(m, context);
                const std::size_t u_count = clprim::unique(d.begin(), d.end(), o1.begin(), q);
                auto h = host(o1, q);
                h.resize(u_count);
                check(h == runs, "unique");
                using bc::lambda::_1;
                const std::size_t k = clprim::partition_copy(d.begin(), d.end(), o1.begin(), o2.begin(), q, _1 > 25u);
                auto h1 = host(o1, q), h2 = host(o2, q);
                h1.resize(k);
                h2.resize(m - k);
                check(h1 == kept && h2 == others, "partition_copy");
            });
        }

        using sa = clprim::sort_algorithm;
        // The small sort's warp kernel (sort_small_warp.cl).
        {
            knob p("CLPRIM_RADIX_PATH", "small"), k("CLPRIM_SORT_SMALL", "warp");
            const std::size_t radix_n = std::min<std::size_t>(n, 1024);
            step("radix small warp uint", [&] { sort_keys_and_pairs<cl_uint>(q, radix_n, sa::radix, "radix small warp"); });
            step("radix small warp ulong", [&] { sort_keys_and_pairs<cl_ulong>(q, radix_n, sa::radix, "radix small warp"); });
            step("radix small warp short", [&] { sort_keys_and_pairs<cl_short>(q, radix_n, sa::radix, "radix small warp"); });
        }
        for (const char* path : {"cpu", "multipass", "onesweep_portable", "small"}) {
            knob p("CLPRIM_RADIX_PATH", path);
            // The small path takes what one work-group holds (Oclgrind's device: 1024 keys).
            const std::size_t radix_n = std::string(path) == "small" ? std::min<std::size_t>(n, 1024) : n;
            const std::string label = std::string("radix ") + path;
            step(label + " uint", [&] { sort_keys_and_pairs<cl_uint>(q, radix_n, sa::radix, label); });
            step(label + " ulong", [&] { sort_keys_and_pairs<cl_ulong>(q, radix_n, sa::radix, label); });
            step(label + " uchar", [&] { sort_keys_and_pairs<cl_uchar>(q, radix_n, sa::radix, label); });
            step(label + " short", [&] { sort_keys_and_pairs<cl_short>(q, radix_n, sa::radix, label); });
            step(label + " uint->uint4", [&] { sort_vector_values(q, radix_n, label); });
        }
        // The look-back's decoupled fallback taken by every tile (scan and one-sweep sort).
        {
            knob fb("CLPRIM_LOOKBACK", "fallback");
            {
                knob p("CLPRIM_SCAN_PATH", "lookback"), items("CLPRIM_SCAN_ITEMS", "2");
                step("lookback fallback scan uint", [&] { scans<cl_uint>(q, n, "fallback"); });
                step("lookback fallback scan ulong", [&] { scans<cl_ulong>(q, n, "fallback"); });
            }
            knob p("CLPRIM_RADIX_PATH", "onesweep_portable"), tiles("CLPRIM_ONESWEEP_TUNE", "256,1"); // 256-key tiles
            step("lookback fallback radix uint", [&] { sort_keys_and_pairs<cl_uint>(q, n, sa::radix, "fallback radix"); });
        }
        for (const char* path : {"cpu", "gpu"}) {
            knob p("CLPRIM_MERGE_PATH", path);
            step(std::string("merge ") + path, [&] { sort_keys_and_pairs<cl_uint>(q, n, sa::merge, std::string("merge ") + path); });
        }
        // The public merge's partition overlapped with merging (merge_overlap.cl): tiles of 4 x 3
        // keys (chunks of four starts), one and three searchers, binary and 3-probe windows, the
        // starts waited for and the fallback; then the NVIDIA policy's 19 keys a work-item with the
        // samples read 8 at a time (tiles of 4 x 19); keys and uint values, against std::merge.
        const char* overlap_shapes[][2] = {{"1", "4,3"}, {"3,3,0,1", "4,3"}, {"2,1,0,4,1", "4,3"}, {"2,1,0,8", "4,19"}};
        for (const auto& shape : overlap_shapes)
            for (const char* lookback : {"wait", "fallback"}) {
                const char* overlap = shape[0];
                knob p("CLPRIM_MERGE_PATH", "gpu"), tune("CLPRIM_MERGE_GPU_TUNE", shape[1]), o("CLPRIM_MERGE_OVERLAP", overlap),
                    lb("CLPRIM_LOOKBACK", lookback);
                const std::string label = std::string("merge overlap ") + overlap + (std::strcmp(shape[1], "4,3") ? std::string(" tiles ") + shape[1] : std::string()) + " " + lookback;
                step(label, [&] {
                    auto a = tour_data<cl_uint>(n / 3, 8, 1000), b = tour_data<cl_uint>(n - n / 3, 9, 1000);
                    std::sort(a.begin(), a.end());
                    std::sort(b.begin(), b.end());
                    std::vector<cl_uint> va(a.size()), vb(b.size());
                    for (std::size_t i = 0; i < va.size(); ++i) va[i] = cl_uint(i);
                    for (std::size_t i = 0; i < vb.size(); ++i) vb[i] = cl_uint(va.size() + i);
                    std::vector<std::pair<cl_uint, cl_uint>> pa, pb, expect(n);
                    for (std::size_t i = 0; i < a.size(); ++i) pa.emplace_back(a[i], va[i]);
                    for (std::size_t i = 0; i < b.size(); ++i) pb.emplace_back(b[i], vb[i]);
                    std::merge(pa.begin(), pa.end(), pb.begin(), pb.end(), expect.begin(),
                               [](const auto& x, const auto& y) { return x.first < y.first; });
                    std::vector<cl_uint> ek(n), ev(n);
                    for (std::size_t i = 0; i < n; ++i) ek[i] = expect[i].first, ev[i] = expect[i].second;
                    bc::vector<cl_uint> da(a.begin(), a.end(), q), db(b.begin(), b.end(), q), dva(va.begin(), va.end(), q),
                        dvb(vb.begin(), vb.end(), q), out(n, q.get_context()), vout(n, q.get_context());
                    clprim::merge(da.begin(), da.end(), db.begin(), db.end(), out.begin(), q);
                    check(host(out, q) == ek, label + " keys");
                    clprim::merge_by_key(da.begin(), da.end(), dva.begin(), db.begin(), db.end(), dvb.begin(), out.begin(),
                                         vout.begin(), q);
                    check(host(out, q) == ek && host(vout, q) == ev, label + " pairs");
                });
            }
        const char* bitonic_names[] = {"global", "local", "fused", "transpose"};
        for (const char* path : {"cpu", "gpu"}) {
            knob p("CLPRIM_BITONIC_PATH", path);
            for (auto v : {clprim::bitonic_variant::global, clprim::bitonic_variant::local, clprim::bitonic_variant::fused,
                           clprim::bitonic_variant::transpose}) {
                const std::string label = std::string("bitonic ") + path + " " + bitonic_names[int(v)];
                step(label, [&] {
                    auto keys = tour_data<cl_uint>(n, 6, 100000);
                    auto sorted = keys;
                    std::sort(sorted.begin(), sorted.end());
                    bc::vector<cl_uint> d(keys.begin(), keys.end(), q);
                    clprim::bitonic_sort(d.begin(), d.end(), q, clprim::sort_order::ascending, v);
                    check(host(d, q) == sorted, label);
                });
            }
        }
        step("odd_even", [&] { sort_keys_and_pairs<cl_uint>(q, 300, sa::odd_even, "odd_even"); });
    } catch (const std::exception& e) {
        std::printf("exception: %s\n", e.what());
        return 1;
    }
    if (listing) return 0;
    // Flushed now: Oclgrind 21.10 may abort while its context is torn down at exit.
    std::printf("%s\n", failures ? "SOME RESULTS WRONG" : "all results right");
    std::fflush(stdout);
    return failures ? 1 : 0;
}

// Scan bench: exclusive scan of uint with each clprim algorithm beside bc::exclusive_scan, as
// effective GB/s (the n elements read plus the n written), each checked against the host; plus
// `fast` with each GPU path forced (fast:lookback, fast:tiles).
#include "bench_framework.hpp"

#include <boost/compute/algorithm/copy.hpp>
#include <boost/compute/algorithm/exclusive_scan.hpp>

#include <cstdlib>
#include <random>
#include <string>

namespace {

namespace bc = boost::compute;

// Few distinct small values would hide errors in the carries: full-range values, sums wrap.
std::vector<cl_uint> host_exclusive(const std::vector<cl_uint>& v)
{
    std::vector<cl_uint> r(v.size());
    cl_uint s = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
        r[i] = s;
        s += v[i];
    }
    return r;
}

} // namespace

CLPRIM_BENCH(scan)
{
    using namespace clprim_bench;
    auto& q = ctx.queue;
    const std::pair<const char*, clprim::scan_algorithm> algos[] = {
        {"hillis_steele", clprim::scan_algorithm::hillis_steele},
        {"blelloch", clprim::scan_algorithm::blelloch},
        {"fast", clprim::scan_algorithm::fast}};
    for (std::size_t n : ctx.sizes) {
        std::vector<cl_uint> host(n);
        std::mt19937 rng{static_cast<unsigned>(n) ^ 0x5ca9u};
        for (auto& x : host) x = rng();
        const auto expect = host_exclusive(host);
        bc::vector<cl_uint> in(n, ctx.ctx), out(n, ctx.ctx);
        if (n) bc::copy(host.begin(), host.end(), in.begin(), q);
        std::vector<cl_uint> got(n);
        auto measure = [&](const char* name, bool baseline, const std::function<void()>& run) {
            run();
            if (n) bc::copy(out.begin(), out.end(), got.begin(), q);
            q.finish();
            result r;
            r.group = "scan";
            r.name = name;
            r.type = "uint";
            r.n = n;
            r.baseline = baseline;
            r.correct = got == expect;
            r.ms = median_ms(q, run, ctx.repeat);
            r.gbps = r.ms > 0 ? 2.0 * double(n) * sizeof(cl_uint) / (r.ms * 1e6) : 0;
            ctx.add(r);
        };
        for (const auto& [name, algo] : algos)
            measure(name, false, [&, a = algo] { clprim::exclusive_scan(in.begin(), in.end(), out.begin(), q, 0u, a); });
        // `fast` with each of its device-wide paths forced (CLPRIM_SCAN_PATH): the single-pass
        // look-back and the three-pass reduce-then-scan, side by side on this device.
        for (const char* path : {"lookback", "tiles"}) {
            const char* before = std::getenv("CLPRIM_SCAN_PATH");
            const std::string saved = before ? before : "";
            setenv("CLPRIM_SCAN_PATH", path, 1);
            measure((std::string("fast:") + path).c_str(), false, [&] {
                clprim::exclusive_scan(in.begin(), in.end(), out.begin(), q, 0u, clprim::scan_algorithm::fast);
            });
            if (before) setenv("CLPRIM_SCAN_PATH", saved.c_str(), 1);
            else unsetenv("CLPRIM_SCAN_PATH");
        }
        measure("boost_compute", true, [&] { bc::exclusive_scan(in.begin(), in.end(), out.begin(), q); });
    }
}

// multi_device_sort of host uint keys (issues #32, #33), n from --sizes, on one queue (the bench's
// device: rows `:1dev`) and on one queue per device of its platform and type (`:<N>dev`, where N
// > 1; CLPRIM_BENCH_MULTI_DEVICES=1|all|1,all, default 1,all), beside what bounds it (group
// multi_device; GB/s = the keys' bytes / time, for the copy rows the bytes moved / time):
//  - multi_device_sort:<N>dev: the policy's choice; :host_merge, :both_merge and :direct force
//    the merge on the host, on devices and host at once, and pageable transfers
//    (CLPRIM_MULTI_MERGE, CLPRIM_MULTI_STAGING; CLPRIM_BENCH_MULTI_VARIANTS=0 leaves them out);
//  - multi_device_sort_by_key:<N>dev: uint -> uint pairs (values = input positions), n <= 2^30;
//  - host_std_sort (std::sort) and host_parallel_sort (every core sorts a piece with std::sort,
//    then pairwise std::merge rounds, each merge cut by co-ranks over all cores) of the same data;
//    CLPRIM_BENCH_MULTI_HOST_MAX=<keys> leaves both out above that n (std::sort of 2^32 keys
//    takes about 10 minutes);
//  - h2d / d2h / duplex (both at once, GB/s of both directions together) of the same bytes (at
//    most 2^30 keys' worth) through a 256 MiB device buffer per device, from the std::vector
//    (pageable) and from mapped CL_MEM_ALLOC_HOST_PTR blocks (pinned): per device (`:dev<i>`) and
//    all devices at once, each moving its share (`:all`);
//  - host_memcpy: the same bytes copied on the host by all cores (GB/s read + written);
//  - radix_sort_device: a one-device radix sort of the largest piece the scratch cap holds
//    (keys and their alternate buffer, at most 2^29 keys), device-resident (no transfers).
// Every sort row is checked in O(n) without a second copy of the input (keys are a function of
// their position: sorted, same sum; pairs: each value's key, equal keys in input order). Sizes of
// 2^28 and more are timed once (after one warm-up call at 2^20 per queue list). Host memory: the
// keys (and values), plus multi_device_sort's own temporary copy.
#include "bench_framework.hpp"

#include <clprim/detail/knobs.hpp>
#include <clprim/detail/scratch_pool.hpp>
#include <clprim/multi_device.hpp>
#include <clprim/radix_sort.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace bc = boost::compute;

using clock_type = std::chrono::steady_clock;

std::size_t cores() { return std::max(1u, std::thread::hardware_concurrency()); }

// body(first, last) over [0, n) in one piece per core.
void parallel_pieces(std::size_t n, const std::function<void(std::size_t, std::size_t)>& body)
{
    const std::size_t t = std::min(cores(), std::max<std::size_t>(1, n / 4096));
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < t; ++i) threads.emplace_back(body, n * i / t, n * (i + 1) / t);
    for (auto& th : threads) th.join();
}

// The key at position i: a function of (seed, i) only, so that data is restored and results are
// checked without a second copy of the input.
inline cl_uint key_at(std::uint64_t seed, std::size_t i)
{
    std::uint64_t z = seed * 0x9e3779b97f4a7c15ull + (i + 1) * 0xbf58476d1ce4e5b9ull; // splitmix64 finaliser
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return cl_uint(z ^ (z >> 31));
}

void fill_random(std::vector<cl_uint>& v, std::uint64_t seed)
{
    parallel_pieces(v.size(), [&](std::size_t first, std::size_t last) {
        for (std::size_t i = first; i < last; ++i) v[i] = key_at(seed, i);
    });
}

void copy_parallel(std::vector<cl_uint>& to, const std::vector<cl_uint>& from)
{
    parallel_pieces(from.size(), [&](std::size_t first, std::size_t last) {
        std::memcpy(to.data() + first, from.data() + first, (last - first) * sizeof(cl_uint));
    });
}

// Sorted, and the same sum of keys as the input (cheap, parallel).
bool sorted_like(const std::vector<cl_uint>& v, std::uint64_t input_sum)
{
    std::vector<std::uint64_t> sums(cores(), 0);
    std::vector<char> ok(cores(), 1);
    const std::size_t n = v.size();
    const std::size_t t = std::min(cores(), std::max<std::size_t>(1, n / 4096));
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < t; ++i)
        threads.emplace_back([&, i] {
            const std::size_t first = n * i / t, last = n * (i + 1) / t;
            std::uint64_t s = 0;
            for (std::size_t j = first; j < last; ++j) {
                s += v[j];
                if (j > 0 && v[j - 1] > v[j]) ok[i] = 0;
            }
            sums[i] = s;
        });
    for (auto& th : threads) th.join();
    std::uint64_t s = 0;
    for (auto x : sums) s += x;
    return s == input_sum && std::all_of(ok.begin(), ok.end(), [](char c) { return c != 0; });
}

std::uint64_t sum_of(const std::vector<cl_uint>& v)
{
    std::vector<std::uint64_t> sums(cores() + 1, 0);
    std::atomic<std::size_t> slot{0};
    parallel_pieces(v.size(), [&](std::size_t first, std::size_t last) {
        std::uint64_t s = 0;
        for (std::size_t i = first; i < last; ++i) s += v[i];
        sums[slot++] = s;
    });
    std::uint64_t s = 0;
    for (auto x : sums) s += x;
    return s;
}

// Pairs: keys sorted, each value the input position of its key, equal keys in input order.
bool pairs_sorted(const std::vector<cl_uint>& keys, const std::vector<cl_uint>& values, std::uint64_t seed)
{
    std::atomic<bool> ok{true};
    parallel_pieces(keys.size(), [&](std::size_t first, std::size_t last) {
        for (std::size_t j = first; j < last; ++j) {
            if (keys[j] != key_at(seed, values[j])) ok = false;
            if (j > 0 && (keys[j - 1] > keys[j] || (keys[j - 1] == keys[j] && values[j - 1] >= values[j]))) ok = false;
        }
    });
    return ok;
}

// How many of the first m outputs of merging a and b come from a (the merge path's co-rank;
// ties from a first).
std::size_t co_rank2(const cl_uint* a, std::size_t na, const cl_uint* b, std::size_t nb, std::size_t m)
{
    std::size_t lo = m > nb ? m - nb : 0, hi = std::min(m, na);
    while (lo < hi) {
        const std::size_t i = lo + (hi - lo) / 2; // take i from a, m - i from b
        if (a[i] <= b[m - i - 1]) lo = i + 1;
        else hi = i;
    }
    return lo;
}

// Every core sorts a piece, then pairwise merge rounds, each merge cut by co-ranks so that every
// round keeps all cores busy.
void host_parallel_sort(std::vector<cl_uint>& v, std::vector<cl_uint>& tmp)
{
    const std::size_t n = v.size();
    std::size_t parts = 1;
    while (parts * 2 <= cores() && n / (parts * 2) >= 4096) parts *= 2;
    std::vector<std::size_t> b(parts + 1);
    for (std::size_t i = 0; i <= parts; ++i) b[i] = n * i / parts;
    {
        std::vector<std::thread> threads;
        for (std::size_t i = 0; i < parts; ++i)
            threads.emplace_back([&, i] { std::sort(v.begin() + b[i], v.begin() + b[i + 1]); });
        for (auto& th : threads) th.join();
    }
    cl_uint* from = v.data();
    cl_uint* to = tmp.data();
    for (std::size_t width = 1; width < parts; width *= 2) {
        std::vector<std::thread> threads;
        const std::size_t merges = (parts + 2 * width - 1) / (2 * width), cuts = std::max<std::size_t>(1, parts / merges);
        for (std::size_t i = 0; i < parts; i += 2 * width) {
            const std::size_t lo = b[i], mid = b[std::min(parts, i + width)], hi = b[std::min(parts, i + 2 * width)];
            const cl_uint* x = from + lo;
            const cl_uint* y = from + mid;
            const std::size_t nx = mid - lo, ny = hi - mid;
            for (std::size_t c = 0; c < cuts; ++c)
                threads.emplace_back([=] {
                    const std::size_t m0 = (nx + ny) * c / cuts, m1 = (nx + ny) * (c + 1) / cuts;
                    const std::size_t i0 = co_rank2(x, nx, y, ny, m0), i1 = co_rank2(x, nx, y, ny, m1);
                    std::merge(x + i0, x + i1, y + (m0 - i0), y + (m1 - i1), to + lo + m0);
                });
        }
        for (auto& th : threads) th.join();
        std::swap(from, to);
    }
    if (from != v.data()) std::memcpy(v.data(), from, n * sizeof(cl_uint));
}

double seconds_since(clock_type::time_point t0)
{
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

void add_row(clprim_bench::context& ctx, const std::string& name, std::size_t n, double ms, double bytes,
             bool correct)
{
    clprim_bench::result r;
    r.group = "multi_device";
    r.name = name;
    r.type = "uint";
    r.n = n;
    r.ms = ms;
    r.gkeys = ms > 0 ? double(n) / (ms * 1e-3) / 1e9 : 0;
    r.gbps = ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0;
    r.correct = correct;
    ctx.add(r);
}

// The copy rows: `bytes` of host memory through a 256 MiB device buffer per queue, every queue
// moving its share at the same time (threads), from the caller's pageable memory and from mapped
// CL_MEM_ALLOC_HOST_PTR blocks (pinned). Names get `suffix`.
void copy_rows(clprim_bench::context& ctx, const std::vector<bc::command_queue>& queues, char* data, std::size_t bytes,
               int repeat, const std::string& suffix)
{
    struct lane {
        bc::command_queue up, down;
        bc::buffer dev_in, dev_out, pin_in, pin_out;
        char* in_ptr = nullptr;
        char* out_ptr = nullptr;
        std::size_t first = 0, last = 0;
    };
    const std::size_t w = queues.size();
    const std::size_t block = std::min<std::size_t>(std::max<std::size_t>(bytes / w, 1), std::size_t(256) << 20);
    std::vector<lane> lanes(w);
    for (std::size_t i = 0; i < w; ++i) {
        lane& l = lanes[i];
        const bc::context c = queues[i].get_context();
        const bc::device d = queues[i].get_device();
        l.up = bc::command_queue(c, d);
        l.down = bc::command_queue(c, d);
        l.dev_in = bc::buffer(c, block);
        l.dev_out = bc::buffer(c, block);
        cl_int err = CL_SUCCESS;
        l.pin_in = bc::buffer(clCreateBuffer(c.get(), CL_MEM_ALLOC_HOST_PTR, block, nullptr, &err), false);
        l.pin_out = bc::buffer(clCreateBuffer(c.get(), CL_MEM_ALLOC_HOST_PTR, block, nullptr, &err), false);
        l.in_ptr = static_cast<char*>(clEnqueueMapBuffer(l.up.get(), l.pin_in.get(), CL_TRUE, CL_MAP_WRITE, 0, block, 0, nullptr, nullptr, &err));
        l.out_ptr = static_cast<char*>(clEnqueueMapBuffer(l.up.get(), l.pin_out.get(), CL_TRUE, CL_MAP_READ, 0, block, 0, nullptr, nullptr, &err));
        l.first = bytes / w * i;
        l.last = i + 1 == w ? bytes : bytes / w * (i + 1);
    }
    for (const bool pinned : {false, true}) {
        auto run = [&](bool h2d, bool d2h) {
            std::vector<double> t;
            for (int rep = 0; rep < repeat + 1; ++rep) {
                const auto t0 = clock_type::now();
                std::vector<std::thread> threads;
                for (lane& l : lanes)
                    threads.emplace_back([&, h2d, d2h] {
                        for (std::size_t at = l.first; at < l.last; at += block) {
                            const std::size_t b = std::min(block, l.last - at);
                            if (h2d) clEnqueueWriteBuffer(l.up.get(), l.dev_in.get(), CL_FALSE, 0, b, pinned ? l.in_ptr : data + at, 0, nullptr, nullptr);
                            if (d2h) clEnqueueReadBuffer(l.down.get(), l.dev_out.get(), CL_FALSE, 0, b, pinned ? l.out_ptr : data + at, 0, nullptr, nullptr);
                            clFlush(l.up.get());
                            clFlush(l.down.get());
                        }
                        l.up.finish();
                        l.down.finish();
                    });
                for (auto& th : threads) th.join();
                if (rep > 0) t.push_back(seconds_since(t0) * 1e3);
            }
            std::sort(t.begin(), t.end());
            return t[t.size() / 2];
        };
        const std::string kind = pinned ? "_pinned" : "_pageable";
        const std::size_t n = bytes / sizeof(cl_uint);
        add_row(ctx, "h2d" + kind + suffix, n, run(true, false), double(bytes), true);
        add_row(ctx, "d2h" + kind + suffix, n, run(false, true), double(bytes), true);
        add_row(ctx, "duplex" + kind + suffix, n, run(true, true), 2.0 * double(bytes), true);
    }
    for (lane& l : lanes) {
        clEnqueueUnmapMemObject(l.up.get(), l.pin_in.get(), l.in_ptr, 0, nullptr, nullptr);
        clEnqueueUnmapMemObject(l.up.get(), l.pin_out.get(), l.out_ptr, 0, nullptr, nullptr);
        l.up.finish();
    }
}

// The queue lists the rows run on: "1" (the bench's queue), "all" (one queue per device of the
// platform of the bench's device type, in one context). CLPRIM_BENCH_MULTI_DEVICES=1|all|1,all
// (default 1,all; "all" is left out where the platform has one such device).
std::vector<std::vector<bc::command_queue>> device_sets(clprim_bench::context& ctx)
{
    const std::string wanted = clprim::detail::knob_text("CLPRIM_BENCH_MULTI_DEVICES").value_or("1,all");
    std::vector<std::vector<bc::command_queue>> sets;
    if (wanted.find('1') != std::string::npos) sets.push_back({ctx.queue});
    if (wanted.find("all") != std::string::npos) {
        const auto type = ctx.device.type();
        std::vector<bc::device> devices;
        for (const auto& d : ctx.device.platform().devices())
            if (d.type() & type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_ACCELERATOR)) devices.push_back(d);
        if (devices.size() > 1 || sets.empty()) {
            bc::context all(devices);
            std::vector<bc::command_queue> queues;
            for (const auto& d : devices) queues.emplace_back(all, d);
            sets.push_back(queues);
        }
    }
    return sets;
}

} // namespace

CLPRIM_BENCH(multi_device)
{
    const auto host_max = clprim::detail::knob_number("CLPRIM_BENCH_MULTI_HOST_MAX", 0, std::size_t(1) << 40);
    const bool variants = clprim::detail::knob_number("CLPRIM_BENCH_MULTI_VARIANTS", 0, 1).value_or(1) == 1;
    const auto sets = device_sets(ctx);
    for (const auto& set : sets) {
        auto queues = set;
        std::vector<cl_uint> warm(std::size_t(1) << 20);
        fill_random(warm, 1);
        clprim::multi_device_sort(warm, queues);
    }
    for (const std::size_t n : ctx.sizes) {
        const int repeat = n >= (std::size_t(1) << 28) ? 1 : std::max(1, ctx.repeat);
        const double bytes = double(n) * sizeof(cl_uint);
        const std::uint64_t seed = n;
        std::vector<cl_uint> data(n);
        fill_random(data, seed);
        const std::uint64_t input_sum = sum_of(data);
        auto timed = [&](const std::function<void()>& body) {
            std::vector<double> t;
            bool ok = true;
            for (int rep = 0; rep < repeat + (repeat > 1 ? 1 : 0); ++rep) {
                fill_random(data, seed);
                const auto t0 = clock_type::now();
                body();
                const double ms = seconds_since(t0) * 1e3;
                if (repeat == 1 || rep > 0) t.push_back(ms);
                ok = ok && sorted_like(data, input_sum);
            }
            std::sort(t.begin(), t.end());
            return std::make_pair(t[t.size() / 2], ok);
        };
        struct variant {
            const char* name;
            const char* knob;
            const char* value;
        };
        for (const auto& set : sets) {
            auto queues = set;
            const std::string devs = ":" + std::to_string(queues.size()) + "dev";
            for (const variant& v : {variant{"", nullptr, nullptr}, variant{":host_merge", "CLPRIM_MULTI_MERGE", "host"},
                                     variant{":both_merge", "CLPRIM_MULTI_MERGE", "both"},
                                     variant{":direct", "CLPRIM_MULTI_STAGING", "direct"}}) {
                if (v.knob && !variants) continue;
                std::unique_ptr<clprim::detail::scoped_knob> knob;
                if (v.knob) knob = std::make_unique<clprim::detail::scoped_knob>(v.knob, v.value);
                const auto [ms, ok] = timed([&] { clprim::multi_device_sort(data, queues); });
                add_row(ctx, std::string("multi_device_sort") + devs + v.name, n, ms, bytes, ok);
            }
            if (n <= (std::size_t(1) << 30)) { // pairs uint -> uint (values: input positions)
                std::vector<cl_uint> values(n);
                std::vector<double> t;
                bool ok = true;
                for (int rep = 0; rep < repeat + (repeat > 1 ? 1 : 0); ++rep) {
                    fill_random(data, seed);
                    parallel_pieces(n, [&](std::size_t first, std::size_t last) {
                        for (std::size_t i = first; i < last; ++i) values[i] = cl_uint(i);
                    });
                    const auto t0 = clock_type::now();
                    clprim::multi_device_sort_by_key(data, values, queues);
                    if (repeat == 1 || rep > 0) t.push_back(seconds_since(t0) * 1e3);
                    ok = ok && pairs_sorted(data, values, seed);
                }
                std::sort(t.begin(), t.end());
                add_row(ctx, "multi_device_sort_by_key" + devs, n, t[t.size() / 2], 2.0 * bytes, ok);
            }
        }
        // Copy rows: at most 2^30 keys' bytes (the bandwidth is the same), per device and all at once.
        const std::size_t copy_bytes = std::min<std::size_t>(n, std::size_t(1) << 30) * sizeof(cl_uint);
        const auto& widest = sets.back();
        for (std::size_t i = 0; i < widest.size(); ++i)
            copy_rows(ctx, {widest[i]}, reinterpret_cast<char*>(data.data()), copy_bytes, repeat,
                      widest.size() > 1 ? ":dev" + std::to_string(i) : "");
        if (widest.size() > 1)
            copy_rows(ctx, widest, reinterpret_cast<char*>(data.data()), copy_bytes, repeat, ":all");
        if (n <= (std::size_t(1) << 30)) {
            std::vector<cl_uint> copy(n);
            const auto t0 = clock_type::now();
            copy_parallel(copy, data);
            add_row(ctx, "host_memcpy", n, seconds_since(t0) * 1e3, 2.0 * bytes, true); // read + written, all cores
        }
        {
            // The largest piece that fits with its alternate buffer within the scratch cap.
            std::size_t piece = std::min<std::size_t>(n, std::size_t(1) << 29);
            while (piece > 1 && 2 * piece * sizeof(cl_uint) > clprim::detail::scratch_limit_bytes(ctx.device)) piece /= 2;
            fill_random(data, seed);
            bc::vector<cl_uint> original(piece, ctx.ctx), dev(piece, ctx.ctx);
            bc::copy(data.begin(), data.begin() + std::ptrdiff_t(piece), original.begin(), ctx.queue);
            const double ms = clprim_examples::median_ms(
                ctx.queue, [&] { bc::copy(original.begin(), original.end(), dev.begin(), ctx.queue); },
                [&] { clprim::radix_sort(dev.begin(), dev.end(), ctx.queue); }, std::max(1, std::min(ctx.repeat, 5)));
            add_row(ctx, "radix_sort_device", piece, ms, double(piece) * sizeof(cl_uint), true);
        }
        if (!host_max || n <= *host_max) {
            const auto [ms, ok] = timed([&] { std::sort(data.begin(), data.end()); });
            add_row(ctx, "host_std_sort", n, ms, bytes, ok);
            std::vector<cl_uint> tmp(n);
            const auto [pms, pok] = timed([&] { host_parallel_sort(data, tmp); });
            add_row(ctx, "host_parallel_sort", n, pms, bytes, pok);
        }
    }
}

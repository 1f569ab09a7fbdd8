// The multi-device sort's host merge (see multi_device_merge.hpp). Keys are compared as
// detail::ordered_key(key, order), unsigned integers whose order is the sorts' key order (the
// descending order inverted), so one ascending merge serves both orders and every key type:
// the element type's width, sign and float-ness pick the C++ type once per call.
#include "multi_device_merge.hpp"

#include <clprim/detail/host_key_order.hpp>
#include <clprim/error.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

namespace clprim {
namespace detail {

namespace {

// Calls f(K{}) with the C++ key type of t (integers of 1 to 8 bytes, float, double).
template <class F>
void with_key_type(element_type t, F&& f)
{
    const std::size_t bytes = size_of(t);
    if (is_float(t)) {
        if (bytes == 4) return f(float{});
        if (bytes == 8) return f(double{});
    } else if (is_signed(t)) {
        if (bytes == 1) return f(std::int8_t{});
        if (bytes == 2) return f(std::int16_t{});
        if (bytes == 4) return f(std::int32_t{});
        if (bytes == 8) return f(std::int64_t{});
    } else {
        if (bytes == 1) return f(std::uint8_t{});
        if (bytes == 2) return f(std::uint16_t{});
        if (bytes == 4) return f(std::uint32_t{});
        if (bytes == 8) return f(std::uint64_t{});
    }
    throw unsupported_error(std::string("clprim::multi_device_sort: no host key order for ") + cl_name(t));
}

// Runs body(i) for i in [0, count) on up to `threads` threads (the calling one among them);
// the first exception is rethrown after all have ended.
template <class Body>
void parallel_for(std::size_t count, std::size_t threads, Body body)
{
    threads = std::max<std::size_t>(1, std::min(threads, count));
    std::atomic<std::size_t> next{0};
    std::exception_ptr failure;
    std::mutex failure_mutex;
    auto work = [&] {
        try {
            for (std::size_t i; (i = next.fetch_add(1)) < count;) body(i);
        } catch (...) {
            std::lock_guard<std::mutex> lock(failure_mutex);
            if (!failure) failure = std::current_exception();
            next = count;
        }
    };
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    if (failure) std::rethrow_exception(failure);
}

template <class K>
struct key_view {
    using U = ordered_key_t<K>;
    const char* keys;
    sort_order order;
    U at(std::size_t i) const
    {
        K k;
        std::memcpy(&k, keys + i * sizeof(K), sizeof(K));
        return ordered_key(k, order);
    }
    // First index in [first, last) whose key is > v (upper) or >= v (lower).
    std::size_t bound(std::size_t first, std::size_t last, U v, bool upper) const
    {
        while (first < last) {
            const std::size_t mid = first + (last - first) / 2;
            const U m = at(mid);
            if (upper ? !(v < m) : (m < v)) first = mid + 1;
            else last = mid;
        }
        return first;
    }
};

template <class K>
std::vector<std::size_t> co_rank_typed(const sorted_runs& runs, std::size_t m)
{
    using U = ordered_key_t<K>;
    const std::size_t k = runs.runs();
    std::vector<std::size_t> split(k);
    if (m >= runs.size()) {
        for (std::size_t r = 0; r < k; ++r) split[r] = runs.starts[r + 1] - runs.starts[r];
        return split;
    }
    if (m == 0) return split;
    const key_view<K> view{runs.keys, runs.order};
    auto count_le = [&](U v) {
        std::size_t c = 0;
        for (std::size_t r = 0; r < k; ++r) c += view.bound(runs.starts[r], runs.starts[r + 1], v, true) - runs.starts[r];
        return c;
    };
    // The key of output m: the smallest v with more than m keys <= v.
    U lo = 0, hi = U(~U(0));
    while (lo < hi) {
        const U mid = U(lo + (hi - lo) / 2);
        if (count_le(mid) > m) hi = mid;
        else lo = U(mid + 1);
    }
    // Keys < v all precede m; of the keys equal to v, the first m - (count below v) in (run,
    // position) order do.
    std::size_t below = 0;
    std::vector<std::size_t> lower(k), upper(k);
    for (std::size_t r = 0; r < k; ++r) {
        lower[r] = view.bound(runs.starts[r], runs.starts[r + 1], lo, false);
        upper[r] = view.bound(lower[r], runs.starts[r + 1], lo, true);
        below += lower[r] - runs.starts[r];
    }
    std::size_t rest = m - below;
    for (std::size_t r = 0; r < k; ++r) {
        const std::size_t take = std::min(rest, upper[r] - lower[r]);
        split[r] = lower[r] - runs.starts[r] + take;
        rest -= take;
    }
    return split;
}

// A k-way merge by a loser tree over the runs (Knuth's tournament: the root holds the smallest
// head, each inner node the loser of its match, so one replay of log k matches per output): the
// smaller key first, the lower run on ties, an exhausted run after everything. VB: the bytes of
// a value when fixed at compile time (0: keys alone; ~0: run-time width runs.value_bytes).
template <class K, std::size_t VB>
void merge_piece_typed(const sorted_runs& runs, const std::vector<std::size_t>& from, const std::vector<std::size_t>& to,
                       char* out_keys, char* out_values)
{
    using U = ordered_key_t<K>;
    const std::size_t k = runs.runs();
    const std::size_t vb = runs.value_bytes;
    const key_view<K> view{runs.keys, runs.order};
    std::size_t leaves = 1;
    while (leaves < k) leaves *= 2;
    std::vector<std::size_t> pos(leaves, 0), end(leaves, 0);
    std::vector<U> key(leaves, 0);
    std::vector<char> done(leaves, 1);
    // Keys of up to 32 bits: (key, run) packed into one 64-bit rank, an exhausted run above all.
    constexpr bool packed = sizeof(K) <= 4;
    std::vector<std::uint64_t> rank(packed ? leaves : 0);
    auto set_rank = [&](std::size_t r) {
        if constexpr (packed)
            rank[r] = done[r] ? (std::uint64_t(0xffffffffu) << 32) | (leaves + r) : (std::uint64_t(key[r]) << 32) | r;
    };
    std::size_t total = 0;
    for (std::size_t r = 0; r < leaves; ++r) {
        if (r < k) {
            pos[r] = runs.starts[r] + from[r];
            end[r] = runs.starts[r] + to[r];
            total += end[r] - pos[r];
            done[r] = pos[r] == end[r];
            if (!done[r]) key[r] = view.at(pos[r]);
        }
        set_rank(r);
    }
    auto before = [&](std::size_t a, std::size_t b) {
        if constexpr (packed) {
            return rank[a] < rank[b];
        } else {
            if (done[a] != done[b]) return done[b] != 0;
            if (key[a] != key[b]) return key[a] < key[b];
            return a < b;
        }
    };
    std::vector<std::size_t> loser(leaves, 0);
    // Plays the subtree of node, leaves its losers in place, returns its winner.
    auto build = [&](auto& self, std::size_t node) -> std::size_t {
        if (node >= leaves) return node - leaves;
        const std::size_t a = self(self, 2 * node), b = self(self, 2 * node + 1);
        if (before(a, b)) {
            loser[node] = b;
            return a;
        }
        loser[node] = a;
        return b;
    };
    std::size_t winner = build(build, 1);
    const K* in_k = reinterpret_cast<const K*>(runs.keys);
    K* out_k = reinterpret_cast<K*>(out_keys);
    for (std::size_t o = 0; o < total; ++o) {
        const std::size_t r = winner, i = pos[r];
        std::memcpy(out_k + o, in_k + i, sizeof(K));
        if constexpr (VB == std::size_t(-1)) std::memcpy(out_values + o * vb, runs.values + i * vb, vb);
        else if constexpr (VB > 0) std::memcpy(out_values + o * VB, runs.values + i * VB, VB);
        if (++pos[r] == end[r]) done[r] = 1;
        else key[r] = view.at(pos[r]);
        set_rank(r);
        std::size_t w = r;
        for (std::size_t node = (r + leaves) / 2; node >= 1; node /= 2) {
            // Branch-free (conditional moves): on random keys a branch here is mispredicted
            // half the time.
            const std::size_t l = loser[node];
            const bool swap = before(l, w);
            loser[node] = swap ? w : l;
            w = swap ? l : w;
        }
        winner = w;
    }
}

} // namespace

bool keys_sorted(const char* keys, element_type key_type, sort_order order, std::size_t n, std::size_t threads)
{
    std::atomic<bool> sorted{true};
    with_key_type(key_type, [&](auto key) {
        using K = decltype(key);
        const key_view<K> view{keys, order};
        const std::size_t parts = std::max<std::size_t>(1, std::min(threads * 4, n / 65536));
        parallel_for(parts, threads, [&](std::size_t p) {
            const std::size_t first = n / parts * p + n % parts * p / parts;
            const std::size_t last = n / parts * (p + 1) + n % parts * (p + 1) / parts;
            for (std::size_t i = std::max<std::size_t>(first, 1); i < last && sorted; ++i)
                if (view.at(i) < view.at(i - 1)) sorted = false;
        });
    });
    return sorted;
}

std::vector<std::size_t> co_rank(const sorted_runs& runs, std::size_t m)
{
    std::vector<std::size_t> split;
    with_key_type(runs.key_type, [&](auto key) { split = co_rank_typed<decltype(key)>(runs, m); });
    return split;
}

std::vector<std::vector<std::size_t>> co_ranks(const sorted_runs& runs, const std::vector<std::size_t>& bounds,
                                               std::size_t threads)
{
    std::vector<std::vector<std::size_t>> splits(bounds.size());
    parallel_for(bounds.size(), threads, [&](std::size_t i) { splits[i] = co_rank(runs, bounds[i]); });
    return splits;
}

void merge_piece(const sorted_runs& runs, const std::vector<std::size_t>& from, const std::vector<std::size_t>& to,
                 char* out_keys, char* out_values)
{
    with_key_type(runs.key_type, [&](auto key) {
        using K = decltype(key);
        if (!out_values) merge_piece_typed<K, 0>(runs, from, to, out_keys, out_values);
        else if (runs.value_bytes == 4) merge_piece_typed<K, 4>(runs, from, to, out_keys, out_values);
        else if (runs.value_bytes == 8) merge_piece_typed<K, 8>(runs, from, to, out_keys, out_values);
        else merge_piece_typed<K, std::size_t(-1)>(runs, from, to, out_keys, out_values);
    });
}

void host_merge(const sorted_runs& runs, std::size_t first, std::size_t last, char* out_keys, char* out_values,
                std::size_t pieces, std::size_t threads)
{
    const std::size_t n = last - first;
    if (n == 0) return;
    pieces = std::max<std::size_t>(1, std::min(pieces, n));
    std::vector<std::size_t> bounds(pieces + 1);
    for (std::size_t p = 0; p <= pieces; ++p) bounds[p] = first + n / pieces * p + n % pieces * p / pieces;
    const auto splits = co_ranks(runs, bounds, threads);
    const std::size_t kb = size_of(runs.key_type);
    parallel_for(pieces, threads, [&](std::size_t p) {
        const std::size_t at = bounds[p] - first;
        merge_piece(runs, splits[p], splits[p + 1], out_keys + at * kb,
                    out_values ? out_values + at * runs.value_bytes : nullptr);
    });
}

void parallel_copy(void* dst, const void* src, std::size_t bytes, std::size_t threads)
{
    constexpr std::size_t min_part = std::size_t(4) << 20; // a thread per 4 MiB at least
    const std::size_t parts = std::max<std::size_t>(1, std::min(threads, bytes / min_part));
    if (parts == 1) {
        if (bytes) std::memcpy(dst, src, bytes);
        return;
    }
    const std::size_t part = (bytes / parts + 63) / 64 * 64;
    parallel_for(parts, parts, [&](std::size_t i) {
        const std::size_t first = std::min(bytes, i * part), last = std::min(bytes, first + part);
        std::memcpy(static_cast<char*>(dst) + first, static_cast<const char*>(src) + first, last - first);
    });
}

copy_team::copy_team(std::size_t threads)
{
    for (std::size_t t = 1; t < threads; ++t)
        threads_.emplace_back([this, t] {
            std::size_t seen = 0;
            for (;;) {
                {
                    std::unique_lock<std::mutex> lock(mutex_);
                    start_.wait(lock, [&] { return quit_ || generation_ != seen; });
                    if (quit_) return;
                    seen = generation_;
                }
                part(t);
                std::lock_guard<std::mutex> lock(mutex_);
                if (--pending_ == 0) done_.notify_all();
            }
        });
}

copy_team::~copy_team()
{
    {
        std::lock_guard<std::mutex> lock(mutex_);
        quit_ = true;
    }
    start_.notify_all();
    for (auto& t : threads_) t.join();
}

void copy_team::part(std::size_t i)
{
    if (i >= parts_) return;
    const std::size_t size = (bytes_ / parts_ + 63) / 64 * 64;
    const std::size_t first = std::min(bytes_, i * size), last = std::min(bytes_, first + size);
    if (last > first) std::memcpy(dst_ + first, src_ + first, last - first);
}

void copy_team::copy(void* dst, const void* src, std::size_t bytes)
{
    constexpr std::size_t min_part = std::size_t(1) << 20;
    const std::size_t parts = std::max<std::size_t>(1, std::min(threads_.size() + 1, bytes / min_part));
    if (parts == 1) {
        if (bytes) std::memcpy(dst, src, bytes);
        return;
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        dst_ = static_cast<char*>(dst);
        src_ = static_cast<const char*>(src);
        bytes_ = bytes;
        parts_ = parts;
        pending_ = threads_.size();
        ++generation_;
    }
    start_.notify_all();
    part(0);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return pending_ == 0; });
}

} // namespace detail
} // namespace clprim

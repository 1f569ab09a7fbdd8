// Every algorithm and primitive on an out-of-order command queue (PoCL really runs such a queue
// out of order). Each check enqueues, with no waits in between: a non-blocking write of the input
// (and, where the call adds to its output, a non-blocking fill of that output), the clprim call,
// then a copy of the result into a second buffer. Only then does the host wait (finish) and read
// the copy. The result is right only if the call started after the user's write and finished
// before the user's copy, and if the call's own steps ran in order.
#define BOOST_TEST_MODULE clprim_out_of_order
#include "sort_test_support.hpp"

#include <clprim/detail/queue_order.hpp>

#include <cstdint>
#include <cstdlib>
#include <numeric>

using namespace clprim_test;

namespace {

// One out-of-order queue for the suite (profiling on, so the companion's copy of it is checked).
bc::command_queue& ooo_queue()
{
    auto& d = device_under_test::get();
    static bc::command_queue q(d.context, d.device,
                               CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE);
    return q;
}

bool ooo_supported()
{
    const auto props = device_under_test::get().device.get_info<cl_command_queue_properties>(CL_DEVICE_QUEUE_PROPERTIES);
    if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) return true;
    BOOST_TEST_MESSAGE("device has no out-of-order queues: case skipped");
    return false;
}

// Sizes: one element, a range inside one work-group, and one across many work-groups (and tiles
// of the scans and sorts).
const std::vector<std::size_t> sizes{1, 1000, (std::size_t(1) << 17) + 3};

// A buffer of [guard, data..., guard] whose stale contents (a marker pattern) are on the device
// before the test begins; stage() then enqueues the real contents without waiting.
template <class T>
struct staged_buffer {
    std::size_t n;
    T guard;
    std::vector<T> host; // must live until the non-blocking write has run
    bc::buffer buffer;

    staged_buffer(const std::vector<T>& data, T g)
        : n(data.size()), guard(g), host(data.size() + 2, g),
          buffer(device_under_test::get().context, (data.size() + 2) * sizeof(T))
    {
        std::copy(data.begin(), data.end(), host.begin() + 1);
        std::vector<unsigned char> stale(host.size() * sizeof(T), 0x5a);
        auto& q = device_under_test::get().queue; // in order: done before anything below
        q.enqueue_write_buffer(buffer, 0, stale.size(), stale.data());
        q.finish();
    }
    void stage(bc::command_queue& q) { q.enqueue_write_buffer_async(buffer, 0, host.size() * sizeof(T), host.data()); }
    bc::buffer_iterator<T> first() const { return bc::make_buffer_iterator<T>(buffer, 1); }
    bc::buffer_iterator<T> last() const { return bc::make_buffer_iterator<T>(buffer, 1 + n); }
};

// Enqueued right after the call (no wait): a device copy of the whole buffer. Then the host
// waits for the queue and reads the copy; guards_ok tells whether the guards survived.
template <class T>
std::vector<T> copy_after(bc::command_queue& q, const staged_buffer<T>& b, bool& guards_ok)
{
    bc::buffer copy(q.get_context(), b.buffer.size());
    q.enqueue_copy_buffer(b.buffer, copy, 0, 0, b.buffer.size());
    q.finish();
    std::vector<T> all(b.n + 2);
    device_under_test::get().queue.enqueue_read_buffer(copy, 0, b.buffer.size(), all.data());
    guards_ok = std::memcmp(&all.front(), &b.guard, sizeof(T)) == 0 && std::memcmp(&all.back(), &b.guard, sizeof(T)) == 0;
    return std::vector<T>(all.begin() + 1, all.end() - 1);
}

template <class T>
std::string label(std::size_t n, const char* what)
{
    return type_label<T>() + " n=" + std::to_string(n) + " " + what;
}

// ---- reduce ----

template <class T>
T host_reduce(const std::vector<T>& v, clprim::reduce_op op)
{
    if (op == clprim::reduce_op::sum) {
        using U = std::make_unsigned_t<T>; // wrap-around sum, as OpenCL integers do
        U s = 0;
        for (T x : v) s = U(s + U(x));
        return T(s);
    }
    if (op == clprim::reduce_op::min) return *std::min_element(v.begin(), v.end());
    return *std::max_element(v.begin(), v.end());
}

template <class T>
void check_reduce(std::size_t n)
{
    auto& q = ooo_queue();
    const auto data = make_data<T>(n, distribution::random);
    const clprim::reduce_variant variants[] = {
        clprim::reduce_variant::reduce0, clprim::reduce_variant::reduce1, clprim::reduce_variant::reduce2,
        clprim::reduce_variant::reduce3, clprim::reduce_variant::reduce4, clprim::reduce_variant::reduce5,
        clprim::reduce_variant::reduce6, clprim::reduce_variant::fast};
    // 64-bit types: sums only (one program fewer to compile per op on PoCL; ordering does not
    // depend on the type).
    const auto ops = sizeof(T) == 4 ? std::vector<clprim::reduce_op>{clprim::reduce_op::sum, clprim::reduce_op::min,
                                                                     clprim::reduce_op::max}
                                    : std::vector<clprim::reduce_op>{clprim::reduce_op::sum};
    for (auto op : ops)
        for (auto v : variants) {
            staged_buffer<T> in(data, T(0));
            in.stage(q);
            const T got = clprim::reduce(in.first(), in.last(), q, op, v);
            BOOST_TEST(got == host_reduce(data, op),
                       label<T>(n, "reduce") << " op " << int(op) << " variant " << int(v));
        }
}

// ---- scans ----

template <class T>
void check_scan(std::size_t n, bool inclusive, clprim::scan_algorithm algo, bool in_place)
{
    auto& q = ooo_queue();
    using U = std::make_unsigned_t<T>;
    const auto data = make_data<T>(n, distribution::random);
    const T init = T(5);
    std::vector<T> want(n);
    U acc = inclusive ? U(0) : U(init);
    for (std::size_t i = 0; i < n; ++i) {
        if (inclusive) acc = U(acc + U(data[i]));
        want[i] = T(acc);
        if (!inclusive) acc = U(acc + U(data[i]));
    }
    staged_buffer<T> in(data, T(7));
    staged_buffer<T> out(std::vector<T>(n, T(1)), T(9));
    in.stage(q);
    if (!in_place) out.stage(q);
    const staged_buffer<T>& result = in_place ? in : out;
    if (inclusive) clprim::inclusive_scan(in.first(), in.last(), result.first(), q, algo);
    else clprim::exclusive_scan(in.first(), in.last(), result.first(), q, init, algo);
    bool guards_ok = false;
    const auto got = copy_after(q, result, guards_ok);
    const std::string what = label<T>(n, inclusive ? "inclusive_scan" : "exclusive_scan") + " algorithm " +
                             std::to_string(int(algo)) + (in_place ? " in place" : "");
    BOOST_TEST(guards_ok, what << ": guard overwritten");
    BOOST_TEST(first_difference(got, want) == -1, what << ": first difference at " << first_difference(got, want));
}

// ---- histogram ----

template <class T>
void check_histogram(std::size_t n, std::size_t bins)
{
    auto& q = ooo_queue();
    std::mt19937_64 rng(n * 31 + bins);
    std::vector<T> data(n);
    for (auto& x : data) x = T(rng() % 1200); // some outside [0, 1000)
    const T lower = T(0), upper = T(1000);
    std::vector<cl_uint> want(bins, 0);
    for (T x : data)
        if (x >= lower && x < upper) ++want[std::size_t(std::uint64_t(x - lower) * bins / std::uint64_t(upper - lower))];
    staged_buffer<T> in(data, T(0));
    staged_buffer<cl_uint> counts(std::vector<cl_uint>(bins, 0), 77u); // zeroed by the staged write
    in.stage(q);
    counts.stage(q);
    clprim::histogram(in.first(), in.last(), counts.first(), bins, lower, upper, q);
    bool guards_ok = false;
    const auto got = copy_after(q, counts, guards_ok);
    const std::string what = label<T>(n, "histogram") + " bins=" + std::to_string(bins);
    BOOST_TEST(guards_ok, what << ": guard overwritten");
    BOOST_TEST(first_difference(got, want) == -1, what << ": first difference at " << first_difference(got, want));
}

// ---- sorts ----

enum class sorter { radix, merge, odd_even, bitonic_global, bitonic_local, bitonic_fused, bitonic_transpose, sort_switch, boost_compute };

const char* name_of(sorter s)
{
    switch (s) {
    case sorter::radix: return "radix";
    case sorter::merge: return "merge";
    case sorter::odd_even: return "odd_even";
    case sorter::bitonic_global: return "bitonic global";
    case sorter::bitonic_local: return "bitonic local";
    case sorter::bitonic_fused: return "bitonic fused";
    case sorter::bitonic_transpose: return "bitonic transpose";
    case sorter::sort_switch: return "sort(radix)";
    case sorter::boost_compute: return "sort(boost_compute)";
    }
    return "?";
}

template <class T>
void run_sort(sorter s, bc::buffer_iterator<T> first, bc::buffer_iterator<T> last, bc::command_queue& q,
              clprim::sort_order order)
{
    switch (s) {
    case sorter::radix: return clprim::radix_sort(first, last, q, order);
    case sorter::merge: return clprim::merge_sort(first, last, q, order);
    case sorter::odd_even: return clprim::odd_even_sort(first, last, q, order);
    case sorter::bitonic_global: return clprim::bitonic_sort(first, last, q, order, clprim::bitonic_variant::global);
    case sorter::bitonic_local: return clprim::bitonic_sort(first, last, q, order, clprim::bitonic_variant::local);
    case sorter::bitonic_fused: return clprim::bitonic_sort(first, last, q, order, clprim::bitonic_variant::fused);
    case sorter::bitonic_transpose: return clprim::bitonic_sort(first, last, q, order, clprim::bitonic_variant::transpose);
    case sorter::sort_switch: return clprim::sort(first, last, q, clprim::sort_algorithm::radix, order);
    case sorter::boost_compute: return clprim::sort(first, last, q, clprim::sort_algorithm::boost_compute, order);
    }
}

template <class K, class V>
void run_sort_by_key(clprim::sort_algorithm a, bc::buffer_iterator<K> kf, bc::buffer_iterator<K> kl,
                     bc::buffer_iterator<V> vf, bc::command_queue& q, clprim::sort_order order)
{
    clprim::sort_by_key(kf, kl, vf, q, a, order);
}

// Odd-even transposition does O(n^2) work: its large case stays at a few tiles.
std::size_t size_for(sorter s, std::size_t n) { return s == sorter::odd_even && n > 5000 ? 5003 : n; }

template <class T>
void check_sort(sorter s, std::size_t n, clprim::sort_order order)
{
    auto& q = ooo_queue();
    n = size_for(s, n);
    // Boost.Compute keeps its own order on NaN and -0.0: plain random values for it.
    const auto data = make_data<T>(n, std::is_floating_point_v<T> && s != sorter::boost_compute
                                          ? distribution::float_specials
                                          : distribution::random);
    staged_buffer<T> keys(data, std::numeric_limits<T>::max());
    keys.stage(q);
    run_sort(s, keys.first(), keys.last(), q, order);
    bool guards_ok = false;
    const auto got = copy_after(q, keys, guards_ok);
    const auto want = reference(data, order);
    const std::string what = label<T>(n, name_of(s)) + (order == clprim::sort_order::ascending ? " asc" : " desc");
    BOOST_TEST(guards_ok, what << ": guard overwritten");
    BOOST_TEST(first_difference(got, want) == -1, what << ": first difference at " << first_difference(got, want));
}

void check_sort_by_key(clprim::sort_algorithm a, std::size_t n, clprim::sort_order order)
{
    auto& q = ooo_queue();
    if (a == clprim::sort_algorithm::odd_even && n > 5000) n = 5003;
    const auto keys = make_data<cl_uint>(n, distribution::few_distinct);
    std::vector<cl_uint> vals(n);
    std::iota(vals.begin(), vals.end(), 0u);
    staged_buffer<cl_uint> kb(keys, 7u), vb(vals, 3u);
    kb.stage(q);
    vb.stage(q);
    run_sort_by_key(a, kb.first(), kb.last(), vb.first(), q, order);
    bool kg = false, vg = false;
    const auto got_k = copy_after(q, kb, kg);
    const auto got_v = copy_after(q, vb, vg);
    const std::string what = "sort_by_key algorithm " + std::to_string(int(a)) + " n=" + std::to_string(n) +
                             (order == clprim::sort_order::ascending ? " asc" : " desc");
    BOOST_TEST((kg && vg), what << ": guard overwritten");
    BOOST_TEST(first_difference(got_k, reference(keys, order)) == -1, what << ": keys wrong");
    bool ok = true; // every value beside its own key, each once (stability is the sort suites' job)
    std::vector<char> seen(n, 0);
    for (std::size_t i = 0; i < n && ok; ++i) {
        ok = got_v[i] < n && !seen[got_v[i]] && keys[got_v[i]] == got_k[i];
        if (ok) seen[got_v[i]] = 1;
    }
    BOOST_TEST(ok, what << ": values do not follow their keys");
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(out_of_order, fixture)

// The scope itself: a pass-through on in-order queues; on an out-of-order one an in-order queue of
// the same context, device and profiling property, the same one for every call on that queue,
// and a pass-through again when nested.
BOOST_AUTO_TEST_CASE(in_order_scope_companion)
{
    if (!ooo_supported()) return;
    namespace cd = clprim::detail;
    {
        cd::in_order_scope s(queue);
        BOOST_TEST(&s.queue() == &queue);
    }
    auto& q = ooo_queue();
    cl_command_queue first = nullptr;
    {
        cd::in_order_scope s(q);
        bc::command_queue& c = s.queue();
        first = c.get();
        BOOST_TEST(c.get() != q.get());
        BOOST_TEST((c.get_properties() & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) == 0u);
        BOOST_TEST((c.get_properties() & CL_QUEUE_PROFILING_ENABLE) != 0u);
        BOOST_TEST(c.get_context().get() == q.get_context().get());
        BOOST_TEST(c.get_device().id() == q.get_device().id());
        cd::in_order_scope nested(c);
        BOOST_TEST(&nested.queue() == &c);
    }
    {
        cd::in_order_scope s(q);
        BOOST_TEST(s.queue().get() == first);
    }
    q.finish();
}

BOOST_AUTO_TEST_CASE(reduce_every_variant_and_op)
{
    if (!ooo_supported()) return;
    for (auto n : sizes) {
        check_reduce<cl_uint>(n);
        check_reduce<cl_long>(n);
    }
}

// fast takes one of three paths (primitives/scan.cpp): each is forced in turn.
BOOST_AUTO_TEST_CASE(scans_every_algorithm_and_path)
{
    if (!ooo_supported()) return;
    for (const char* path : {"lookback", "chunks", "tiles"}) {
        setenv("CLPRIM_SCAN_PATH", path, 1);
        for (auto algo : {clprim::scan_algorithm::hillis_steele, clprim::scan_algorithm::blelloch, clprim::scan_algorithm::fast}) {
            if (algo != clprim::scan_algorithm::fast && path[0] != 'l') continue; // the path matters only to fast
            for (auto n : sizes)
                for (bool inclusive : {true, false}) {
                    check_scan<cl_uint>(n, inclusive, algo, false);
                    if (algo == clprim::scan_algorithm::fast) check_scan<cl_long>(n, inclusive, algo, true);
                }
        }
    }
    unsetenv("CLPRIM_SCAN_PATH");
}

BOOST_AUTO_TEST_CASE(histogram_local_and_global)
{
    if (!ooo_supported()) return;
    for (auto n : sizes) {
        check_histogram<cl_uint>(n, 64);
        check_histogram<cl_int>(n, 1000);
    }
    check_histogram<cl_uint>(sizes.back(), 60000); // more bins than local memory holds at once
}

BOOST_AUTO_TEST_CASE(every_sort)
{
    if (!ooo_supported()) return;
    for (auto s : {sorter::radix, sorter::merge, sorter::odd_even, sorter::bitonic_global, sorter::bitonic_local,
                   sorter::bitonic_fused, sorter::bitonic_transpose, sorter::sort_switch, sorter::boost_compute})
        for (auto n : sizes) {
            check_sort<cl_int>(s, n, clprim::sort_order::ascending);
            check_sort<cl_float>(s, n, clprim::sort_order::descending);
        }
    check_sort<cl_ulong>(sorter::radix, sizes.back(), clprim::sort_order::descending);
}

BOOST_AUTO_TEST_CASE(every_sort_by_key)
{
    if (!ooo_supported()) return;
    for (auto a : {clprim::sort_algorithm::radix, clprim::sort_algorithm::merge, clprim::sort_algorithm::bitonic,
                   clprim::sort_algorithm::odd_even, clprim::sort_algorithm::boost_compute})
        for (auto n : sizes) check_sort_by_key(a, n, a == clprim::sort_algorithm::merge ? clprim::sort_order::descending
                                                                                         : clprim::sort_order::ascending);
}

// The composed entry points: reductions whose result stays on the device (built-in and user
// operators), a user operator's reduction to the host, and copy_if (which waits for its count).
BOOST_AUTO_TEST_CASE(composed_entry_points)
{
    if (!ooo_supported()) return;
    auto& q = ooo_queue();
    for (auto n : sizes) {
        const auto data = make_data<cl_uint>(n, distribution::random);
        cl_uint sum = 0, x = 0, mx = 0;
        std::vector<cl_uint> kept;
        for (cl_uint v : data) {
            sum += v;
            x ^= v;
            mx = std::max(mx, v);
            if (v > 0x80000000u) kept.push_back(v);
        }
        staged_buffer<cl_uint> in(data, 0u), res(std::vector<cl_uint>(2, 1u), 5u);
        in.stage(q);
        res.stage(q);
        clprim::reduce(in.first(), in.last(), res.first(), q);
        clprim::reduce(in.first(), in.last(), res.first() + 1, q, bc::bit_xor<cl_uint>(), 0u);
        BOOST_TEST(clprim::reduce(in.first(), in.last(), q, bc::max<cl_uint>(), 0u) == mx, "n=" << n);
        bool guards_ok = false;
        const auto got = copy_after(q, res, guards_ok);
        BOOST_TEST(guards_ok);
        BOOST_TEST(got[0] == sum, "reduce to device, n=" << n);
        BOOST_TEST(got[1] == x, "user operator to device, n=" << n);

        staged_buffer<cl_uint> in2(data, 0u), out(std::vector<cl_uint>(n, 3u), 9u);
        in2.stage(q);
        out.stage(q);
        using boost::compute::lambda::_1;
        const std::size_t count = clprim::copy_if(in2.first(), in2.last(), out.first(), q, _1 > 0x80000000u);
        const auto all = copy_after(q, out, guards_ok);
        BOOST_TEST(guards_ok);
        BOOST_TEST(count == kept.size(), "copy_if n=" << n);
        BOOST_TEST((count <= n && std::equal(kept.begin(), kept.end(), all.begin())), "copy_if n=" << n);
    }
}

// Calls back to back on the out-of-order queue with no wait between them: each starts after the
// one before (scan of a sort's result, then a reduce of the scan).
// Host data, sorted with the queue's device (its commands run on the queue's companion).
BOOST_AUTO_TEST_CASE(multi_device_sort_host_data)
{
    if (!ooo_supported()) return;
    std::vector<bc::command_queue> queues{ooo_queue()};
    env_override cap("CLPRIM_MULTI_CHUNK", "5000"); // several chunks and a device merge
    env_override merge("CLPRIM_MULTI_MERGE", "device");
    for (std::size_t n : sizes) {
        auto data = make_data<cl_uint>(n, distribution::random);
        const auto want = reference(data, clprim::sort_order::ascending);
        clprim::multi_device_sort(data, queues);
        BOOST_TEST(bit_equal(data, want), label<cl_uint>(n, "multi_device_sort"));
    }
}

BOOST_AUTO_TEST_CASE(calls_back_to_back)
{
    if (!ooo_supported()) return;
    auto& q = ooo_queue();
    const std::size_t n = sizes.back();
    auto data = make_data<cl_uint>(n, distribution::random);
    for (auto& x : data) x &= 0x3fff; // the prefix sums stay below 2^32
    staged_buffer<cl_uint> b(data, 0u);
    b.stage(q);
    clprim::radix_sort(b.first(), b.last(), q, clprim::sort_order::descending);
    clprim::inclusive_scan(b.first(), b.last(), b.first(), q);
    clprim::merge_sort(b.first(), b.last(), q); // the scan of a descending run is ascending already
    const cl_uint last_value = clprim::reduce(b.first(), b.last(), q, clprim::reduce_op::max);
    std::sort(data.begin(), data.end(), [](cl_uint a, cl_uint c) { return a > c; });
    std::partial_sum(data.begin(), data.end(), data.begin());
    BOOST_TEST(last_value == data.back());
    bool guards_ok = false;
    BOOST_TEST(first_difference(copy_after(q, b, guards_ok), data) == -1);
    BOOST_TEST(guards_ok);
}

BOOST_AUTO_TEST_SUITE_END()

// inclusive_scan / exclusive_scan with user operators: Boost.Compute's built-in function objects
// and non-commutative BOOST_COMPUTE_FUNCTIONs, every device-wide path forced in turn (look-back,
// chunks, tiles), in place or not, against left-to-right host scans bit for bit (the data keep
// float results exact). PoCL compiles one program per operator and type: the matrix is every
// operator on uint, and one operator on every other type.
#define BOOST_TEST_MODULE clprim_operator_scans
#include "clprim_test_fixture.hpp"
#include "host_operators.hpp"

#include <boost/compute/function.hpp>
#include <boost/compute/functional.hpp>

#include <functional>

using namespace clprim_test;

namespace {

const char* const paths[] = {"lookback", "chunks", "tiles"};

// 0, 1, primes, one past a tile of 4096, one past 2^16 (many tiles, several look-back batches),
// and one past 2^20 (the tiles path needs two levels of tile sums).
const std::vector<std::size_t> sizes{0, 1, 2, 3, 31, 257, 4093, 4097, 65537, (std::size_t(1) << 20) + 3};

template <class T, class HostOp>
std::vector<T> host_scan(const std::vector<T>& v, bool inclusive, T start, HostOp op)
{
    std::vector<T> r(v.size());
    T acc = start;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (inclusive) {
            acc = op(acc, v[i]);
            r[i] = acc;
        } else {
            r[i] = acc;
            acc = op(acc, v[i]);
        }
    }
    return r;
}

// One scan on the device, in place or into the middle of a guarded output, against the host.
// init is used by the exclusive scan (the inclusive one starts from the identity).
template <class T, class Op, class HostOp>
void check_op_scan(bc::command_queue& queue, const std::vector<T>& data, Op op, T identity, HostOp host_op,
                   bool inclusive, T init, bool in_place, const std::string& label)
{
    const std::size_t n = data.size();
    const std::vector<T> expected = host_scan(data, inclusive, inclusive ? identity : init, host_op);
    bc::vector<T> d = to_device(data, queue);
    const T guard = T(77);
    std::vector<T> got;
    bool guards_ok = true, input_ok = true;
    if (in_place) {
        if (inclusive) clprim::inclusive_scan(d.begin(), d.end(), d.begin(), queue, op, identity);
        else clprim::exclusive_scan(d.begin(), d.end(), d.begin(), queue, init, op, identity);
        got = to_host(d, queue);
    } else {
        bc::vector<T> out = to_device(std::vector<T>(n + 2, guard), queue);
        if (inclusive) clprim::inclusive_scan(d.begin(), d.end(), out.begin() + 1, queue, op, identity);
        else clprim::exclusive_scan(d.begin(), d.end(), out.begin() + 1, queue, init, op, identity);
        const auto h = to_host(out, queue);
        got.assign(h.begin() + 1, h.end() - 1);
        guards_ok = std::memcmp(&h[0], &guard, sizeof(T)) == 0 && std::memcmp(&h[n + 1], &guard, sizeof(T)) == 0;
        input_ok = bit_equal(to_host(d, queue), data);
    }
    const std::string what = label + (inclusive ? " inclusive" : " exclusive") + (in_place ? " in place" : "") +
                             " n=" + std::to_string(n);
    const long diff = first_difference(got, expected);
    BOOST_TEST(diff < 0, what << ": first difference at " << diff << " (got "
                              << (diff >= 0 ? got[std::size_t(diff)] : T(0)) << ", expected "
                              << (diff >= 0 ? expected[std::size_t(diff)] : T(0)) << ")");
    BOOST_TEST(guards_ok, what << ": wrote outside the output range");
    BOOST_TEST(input_ok, what << ": changed the input");
}

// Both directions, in place on every other size, for every path in turn.
template <class T, class Op, class HostOp, class Make>
void check_all_paths(bc::command_queue& queue, Op op, T identity, HostOp host_op, T init, Make make_data,
                     const std::vector<std::size_t>& ns, const std::string& label)
{
    for (const char* path : paths) {
        env_override force("CLPRIM_SCAN_PATH", path);
        for (std::size_t k = 0; k < ns.size(); ++k) {
            const std::vector<T> data = make_data(ns[k]);
            for (bool inclusive : {true, false})
                check_op_scan<T>(queue, data, op, identity, host_op, inclusive, init, (k + inclusive) % 2 == 1,
                                 label + " [" + path + "]");
        }
    }
}

template <class T>
std::vector<T> random_values(std::size_t n)
{
    std::mt19937_64 rng(n * 7 + 1);
    std::vector<T> v(n);
    for (auto& x : v) x = random_value<T>(rng);
    return v;
}

// Affine maps with an odd factor (invertible, so a misplaced element never drops out).
std::vector<cl_uint> affine_maps(std::size_t n)
{
    std::mt19937_64 rng(n + 3);
    std::vector<cl_uint> v(n);
    for (auto& x : v) x = (cl_uint(2 * (rng() % 0x8000) + 1) << 16) | cl_uint(rng() & 0xffff);
    return v;
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(operator_scans, fixture)

// The commutative built-ins the issue names, over uint.
BOOST_AUTO_TEST_CASE(builtins_uint)
{
    using T = cl_uint;
    check_all_paths<T>(queue, bc::plus<T>(), 0u, wrap_add<T>, 5u, random_values<T>, sizes, "plus");
    check_all_paths<T>(queue, bc::max<T>(), 0u, host_max<T>, 1000u, random_values<T>, sizes, "max");
    check_all_paths<T>(
        queue, bc::min<T>(), ~0u, [](T a, T b) { return std::min(a, b); }, 1u << 31, random_values<T>, sizes, "min");
    check_all_paths<T>(queue, bc::bit_xor<T>(), 0u, std::bit_xor<T>(), 0xabcdu, random_values<T>, sizes, "bit_xor");
    // Odd factors: products never collapse to 0.
    check_all_paths<T>(
        queue, bc::multiplies<T>(), 1u, wrap_mul<T>, 3u,
        [](std::size_t n) {
            std::vector<T> v = random_values<T>(n);
            for (auto& x : v) x |= 1u;
            return v;
        },
        sizes, "multiplies");
}

// Not commutative: any reordering of elements (inside a work-item's run, across work-items, tiles,
// chunks or look-back predecessors) changes the result.
BOOST_AUTO_TEST_CASE(non_commutative_uint)
{
    using T = cl_uint;
    const T init = (T(12345) << 16) | T(678); // x -> 12345 x + 678: not the identity
    check_all_paths<T>(queue, affine_then, T(1) << 16, host_affine_then, init, affine_maps, sizes, "affine_then");
}

BOOST_AUTO_TEST_CASE(non_commutative_ulong)
{
    using T = cl_ulong;
    const T init = (T(0x9e3779b9u) << 32) | T(42);
    auto maps = [](std::size_t n) {
        std::mt19937_64 rng(n + 5);
        std::vector<T> v(n);
        for (auto& x : v) x = (T((rng() & 0xffffffffu) | 1u) << 32) | T(rng() & 0xffffffffu);
        return v;
    };
    check_all_paths<T>(queue, affine_then64, T(1) << 32, host_affine_then64, init, maps,
                       {0, 1, 31, 4097, 65537, (std::size_t(1) << 20) + 3}, "affine_then64");
}

// One operator (max, whose identity is each type's lowest value) over every type.
BOOST_AUTO_TEST_CASE_TEMPLATE(max_every_type, T, all_types)
{
    if (!type_runs_here<T>()) return;
    check_all_paths<T>(queue, bc::max<T>(), lowest<T>(), host_max<T>, T(5), random_values<T>,
                       {0, 1, 257, 4097, 65537}, "max " + type_label<T>());
}

// Float sums of small integers are exact in any order: the sum operator through the generated path.
BOOST_AUTO_TEST_CASE(plus_double_exact)
{
    using T = cl_double;
    if (!type_runs_here<T>()) return;
    auto small = [](std::size_t n) {
        std::mt19937_64 rng(n);
        std::vector<T> v(n);
        for (auto& x : v) x = T(int(rng() % 201) - 100);
        return v;
    };
    check_all_paths<T>(queue, bc::plus<T>(), T(0), wrap_add<T>, T(0.5), small, {1, 4097, 65537}, "plus double");
}

// The look-back path with every tile taking the decoupled fallback for its predecessor
// (CLPRIM_LOOKBACK=fallback: the predecessor's aggregate recomputed from its input with the
// user's operator) and small tiles (CLPRIM_SCAN_ITEMS=2: hundreds of tiles), in place and not:
// identical results, the non-commutative operators showing any reordering.
template <class T, class Op, class HostOp, class Make>
void check_fallback(bc::command_queue& queue, Op op, T identity, HostOp host_op, T init, Make make_data,
                    const std::string& label)
{
    env_override path("CLPRIM_SCAN_PATH", "lookback");
    env_override fallback("CLPRIM_LOOKBACK", "fallback");
    env_override items("CLPRIM_SCAN_ITEMS", "2");
    const std::size_t ns[] = {1, 511, 512, 513, 65537};
    for (std::size_t k = 0; k < std::size(ns); ++k) {
        const std::vector<T> data = make_data(ns[k]);
        for (bool inclusive : {true, false})
            check_op_scan<T>(queue, data, op, identity, host_op, inclusive, init, (k + inclusive) % 2 == 1,
                             label + " [lookback, every tile's fallback]");
    }
}

BOOST_AUTO_TEST_CASE(lookback_fallback_every_tile)
{
    check_fallback<cl_uint>(queue, bc::max<cl_uint>(), 0u, host_max<cl_uint>, 1000u, random_values<cl_uint>, "max");
    check_fallback<cl_uint>(queue, affine_then, cl_uint(1) << 16, host_affine_then, (cl_uint(12345) << 16) | 678u,
                            affine_maps, "affine_then");
    auto maps64 = [](std::size_t n) {
        std::mt19937_64 rng(n + 5);
        std::vector<cl_ulong> v(n);
        for (auto& x : v) x = (cl_ulong((rng() & 0xffffffffu) | 1u) << 32) | cl_ulong(rng() & 0xffffffffu);
        return v;
    };
    check_fallback<cl_ulong>(queue, affine_then64, cl_ulong(1) << 32, host_affine_then64, cl_ulong(42), maps64,
                             "affine_then64");
    check_fallback<cl_float>(queue, bc::min<cl_float>(), std::numeric_limits<cl_float>::infinity(),
                             [](cl_float a, cl_float b) { return std::min(a, b); }, 0.5f, random_values<cl_float>,
                             "min float");
}

// A sub-range in and out, on an out-of-order queue between the caller's own commands.
BOOST_AUTO_TEST_CASE(sub_range_out_of_order)
{
    using T = cl_uint;
    bc::command_queue ooo(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    const std::vector<T> host = affine_maps(70001);
    bc::vector<T> d(host.size(), context);
    bc::copy(host.begin(), host.end(), d.begin(), queue);
    queue.finish();
    bc::vector<T> out(host.size(), context);
    bc::fill(out.begin(), out.end(), 9u, queue);
    queue.finish();
    clprim::exclusive_scan(d.begin() + 3, d.end() - 5, out.begin() + 4, ooo, T(1) << 16, affine_then, T(1) << 16);
    clprim::inclusive_scan(d.begin() + 3, d.end() - 5, d.begin() + 3, ooo, affine_then, T(1) << 16); // in place
    ooo.finish();
    const std::vector<T> in(host.begin() + 3, host.end() - 5);
    const auto exc = host_scan<T>(in, false, T(1) << 16, host_affine_then);
    const auto inc = host_scan<T>(in, true, T(1) << 16, host_affine_then);
    const auto got_out = to_host(out, queue);
    const auto got_d = to_host(d, queue);
    BOOST_TEST(first_difference(std::vector<T>(got_out.begin() + 4, got_out.begin() + 4 + in.size()), exc) < 0);
    BOOST_TEST(first_difference(std::vector<T>(got_d.begin() + 3, got_d.end() - 5), inc) < 0);
    BOOST_TEST((got_out[3] == 9u && got_out[4 + in.size()] == 9u));
    BOOST_TEST((got_d[2] == host[2] && got_d[got_d.size() - 5] == host[host.size() - 5]));
}

BOOST_AUTO_TEST_CASE(bad_ranges_throw_before_enqueueing)
{
    using T = cl_uint;
    const std::vector<T> host(1000, 3u);
    bc::vector<T> d = to_device(host, queue);
    bc::vector<T> small = to_device(std::vector<T>(999, 5u), queue);
    // Too small a result.
    BOOST_CHECK_THROW(clprim::inclusive_scan(d.begin(), d.end(), small.begin(), queue, bc::max<T>(), 0u),
                      clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::exclusive_scan(d.begin(), d.end(), small.begin(), queue, 0u, bc::max<T>(), 0u),
                      clprim::invalid_argument_error);
    // Overlapping the input (other than in place).
    BOOST_CHECK_THROW(clprim::inclusive_scan(d.begin(), d.end() - 1, d.begin() + 1, queue, affine_then, 1u << 16),
                      clprim::invalid_argument_error);
    BOOST_CHECK_THROW(
        clprim::exclusive_scan(d.begin() + 1, d.end(), d.begin(), queue, 0u, bc::bit_xor<T>(), 0u),
        clprim::invalid_argument_error);
    // Reversed input.
    BOOST_CHECK_THROW(clprim::inclusive_scan(d.end(), d.begin(), small.begin(), queue, bc::max<T>(), 0u),
                      clprim::invalid_argument_error);
    // Another context.
    bc::context ctx2(device);
    bc::vector<T> foreign(1000, ctx2);
    BOOST_CHECK_THROW(clprim::inclusive_scan(d.begin(), d.end(), foreign.begin(), queue, bc::max<T>(), 0u),
                      clprim::invalid_argument_error);
    // Nothing was written.
    BOOST_TEST(to_host(d, queue) == host);
    BOOST_TEST(to_host(small, queue) == std::vector<T>(999, 5u));
}

BOOST_AUTO_TEST_SUITE_END()

// Reductions with user operators: Boost.Compute's built-in function objects,
// BOOST_COMPUTE_FUNCTIONs (commutative or not), lambdas; reductions whose result stays on the
// device; against left-to-right host folds (exact: the data are chosen so that even float
// results are exact). Scans with operators: test_operator_scans.cpp.
// PoCL compiles one program per operator and type, so the matrix is lean: every operator once,
// every type once (the built-ins spread over the types), the order-keeping kernels on a 32-bit
// and a 64-bit type.
#define BOOST_TEST_MODULE clprim_operators
#include "clprim_test_fixture.hpp"
#include "host_operators.hpp"

#include <boost/compute/function.hpp>
#include <boost/compute/functional.hpp>
#include <boost/compute/lambda.hpp>

#include <functional>

using namespace clprim_test;

namespace {

// Associative, not commutative: the first non-zero element (identity 0).
BOOST_COMPUTE_FUNCTION(cl_long, first_nonzero_long, (cl_long a, cl_long b), { return a != 0 ? a : b; });

template <class T>
T host_first_nonzero(T a, T b)
{
    return a != 0 ? a : b;
}

const std::vector<std::size_t> sizes{0, 1, 2, 31, 257, 4097, 65537};

// Data the operator's result is exact on: small integers (float sums stay exact), sparse
// non-zeros (first_nonzero finds a late one), odd multipliers (products do not collapse to 0).
template <class T>
std::vector<T> data_for(std::size_t n, int kind, std::uint64_t seed)
{
    std::mt19937_64 rng(seed + n);
    std::vector<T> v(n);
    for (std::size_t i = 0; i < n; ++i) {
        switch (kind) {
        case 0: v[i] = T(rng() % 100); break;                                          // small
        case 1: v[i] = (rng() % 97 == 0) ? T(1 + rng() % 50) : T(0); break;            // sparse
        case 2: v[i] = T((rng() % 3 == 0) ? 2 * (rng() % 8) + 1 : 1); break;           // odd factors
        default: v[i] = random_value<T>(rng); break;                                   // full range
        }
    }
    return v;
}

template <class T, class HostOp>
T host_fold(const std::vector<T>& v, T identity, HostOp op)
{
    T r = identity;
    for (T x : v) r = op(r, x);
    return r;
}

// Runs the value-returning and the device-side reduce with op over data and checks both against
// the host fold, bit for bit (every case here is exact).
template <class T, class Op, class HostOp>
void check_reduce(bc::command_queue& queue, const std::vector<T>& data, Op op, T identity, HostOp host_op,
                  const std::string& label)
{
    const T expected = host_fold(data, identity, host_op);
    bc::vector<T> d = to_device(data, queue);
    const T got = clprim::reduce(d.begin(), d.end(), queue, op, identity);
    BOOST_TEST((std::memcmp(&got, &expected, sizeof(T)) == 0),
               label << " n=" << data.size() << ": got " << got << ", expected " << expected);
    // Device-side result, into the middle of a guarded buffer.
    bc::vector<T> out = to_device(std::vector<T>(3, T(7)), queue);
    clprim::reduce(d.begin(), d.end(), out.begin() + 1, queue, op, identity);
    const auto h = to_host(out, queue);
    BOOST_TEST((std::memcmp(&h[1], &expected, sizeof(T)) == 0 && h[0] == T(7) && h[2] == T(7)),
               label << " device-side n=" << data.size() << ": got " << h[1] << ", expected " << expected);
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(operators, fixture)

// Every built-in operator the API names, each once, spread so that every type is met once:
// every size, full-range data (small integers where a float sum must stay exact).
BOOST_AUTO_TEST_CASE(reduce_builtins)
{
    const bool fp64 = type_runs_here<cl_double>();
    for (std::size_t n : sizes) {
        check_reduce<cl_float>(queue, data_for<cl_float>(n, 0, 1), bc::plus<cl_float>(), 0.f, wrap_add<cl_float>,
                               "plus float");
        check_reduce<cl_uint>(queue, data_for<cl_uint>(n, 2, 2), bc::multiplies<cl_uint>(), 1u, wrap_mul<cl_uint>,
                              "multiplies uint");
        check_reduce<cl_long>(
            queue, data_for<cl_long>(n, 3, 3), bc::min<cl_long>(), std::numeric_limits<cl_long>::max(),
            [](cl_long a, cl_long b) { return std::min(a, b); }, "min long");
        if (fp64)
            check_reduce<cl_double>(
                queue, data_for<cl_double>(n, 3, 4), bc::max<cl_double>(), -std::numeric_limits<cl_double>::infinity(),
                [](cl_double a, cl_double b) { return std::max(a, b); }, "max double");
        else
            check_reduce<cl_uint>(
                queue, data_for<cl_uint>(n, 3, 4), bc::max<cl_uint>(), 0u,
                [](cl_uint a, cl_uint b) { return std::max(a, b); }, "max uint");
        check_reduce<cl_ulong>(queue, data_for<cl_ulong>(n, 3, 5), bc::bit_and<cl_ulong>(), ~cl_ulong(0),
                               std::bit_and<cl_ulong>(), "bit_and ulong");
        check_reduce<cl_int>(queue, data_for<cl_int>(n, 3, 6), bc::bit_or<cl_int>(), 0, std::bit_or<cl_int>(),
                             "bit_or int");
        check_reduce<cl_uint>(queue, data_for<cl_uint>(n, 3, 7), bc::bit_xor<cl_uint>(), 0u, std::bit_xor<cl_uint>(),
                              "bit_xor uint");
    }
}

// A non-commutative operator on a 64-bit type: the order-keeping kernels with 8-byte elements
// (reduce_keeps_element_order has the 32-bit ones).
BOOST_AUTO_TEST_CASE(reduce_non_commutative_64_bit)
{
    using T = cl_long;
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(33), std::size_t(4097), std::size_t(65537)})
        check_reduce<T>(queue, data_for<T>(n, 1, 8), first_nonzero_long, T(0), host_first_nonzero<T>,
                        "first_nonzero long");
}

// A non-commutative operator where every element's position matters, over sizes that cross
// tiles, segments and work-groups (any reordering changes the result).
BOOST_AUTO_TEST_CASE(reduce_keeps_element_order)
{
    using T = cl_uint;
    for (std::size_t n : {std::size_t(2), std::size_t(3), std::size_t(255), std::size_t(4097), std::size_t(65537),
                          (std::size_t(1) << 20) + 3}) {
        std::mt19937_64 rng(n);
        std::vector<T> v(n);
        for (auto& x : v) x = (T(2 * (rng() % 0x8000) + 1) << 16) | T(rng() & 0xffff); // a odd: invertible maps
        check_reduce<T>(queue, v, affine_then, T(1) << 16, host_affine_then, "affine_then");
    }
}

// A lambda as the operator, and a sub-range as the input (nothing outside it is read).
BOOST_AUTO_TEST_CASE(reduce_lambda_and_sub_range)
{
    using T = cl_int;
    using bc::lambda::_1;
    using bc::lambda::_2;
    const auto v = data_for<T>(5000, 3, 6);
    bc::vector<T> d = to_device(v, queue);
    const T got = clprim::reduce(d.begin() + 3, d.end() - 5, queue, _1 + _2, 0);
    const T expected = host_fold(std::vector<T>(v.begin() + 3, v.end() - 5), T(0), wrap_add<T>);
    BOOST_TEST(got == expected);
}

// Device-side results of the built-in reduce_op: a chain of calls into one buffer, one read.
// (A program with every built-in variant per type and op: a 32-bit and a 64-bit type here; the
// value-returning built-ins of every type are in test_reduce.)
using device_side_types = boost::mpl::list<cl_uint, cl_long>;
BOOST_AUTO_TEST_CASE_TEMPLATE(device_side_builtin_ops, T, device_side_types)
{
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1000), std::size_t(65537)}) {
        const auto v = data_for<T>(n, 0, 7);
        bc::vector<T> d = to_device(v, queue);
        bc::vector<T> out = to_device(std::vector<T>(5, T(42)), queue);
        clprim::reduce(d.begin(), d.end(), out.begin(), queue);
        // min and max (other programs) on one type only: PoCL compiles every program.
        const bool minmax = std::is_same_v<T, cl_uint>;
        if (minmax) {
            clprim::reduce(d.begin(), d.end(), out.begin() + 1, queue, clprim::reduce_op::min);
            clprim::reduce(d.begin(), d.end(), out.begin() + 2, queue, clprim::reduce_op::max);
        }
        // The reduction of the three results: reads what the calls before wrote.
        clprim::reduce(out.begin(), out.begin() + 3, out.begin() + 3, queue);
        const auto h = to_host(out, queue);
        T sum = 0, mn = std::numeric_limits<T>::max(), mx = std::numeric_limits<T>::lowest();
        for (T x : v) {
            sum = wrap_add(sum, x);
            mn = std::min(mn, x);
            mx = std::max(mx, x);
        }
        if (!minmax) {
            mn = mx = T(42);
        }
        BOOST_TEST(h[0] == sum);
        BOOST_TEST(h[1] == mn);
        BOOST_TEST(h[2] == mx);
        BOOST_TEST(h[3] == wrap_add(wrap_add(sum, mn), mx));
        BOOST_TEST(h[4] == T(42));
    }
}

// Many back-to-back device-side reductions on one queue, none waited for, then one read.
BOOST_AUTO_TEST_CASE(device_side_back_to_back)
{
    using T = cl_uint;
    const auto v = data_for<T>(100003, 3, 8);
    bc::vector<T> d = to_device(v, queue);
    bc::vector<T> out = to_device(std::vector<T>(64, 0u), queue);
    for (int i = 0; i < 64; ++i) clprim::reduce(d.begin() + i, d.end(), out.begin() + i, queue);
    const auto h = to_host(out, queue);
    for (int i = 0; i < 64; ++i) {
        const T expected = host_fold(std::vector<T>(v.begin() + i, v.end()), T(0), wrap_add<T>);
        BOOST_TEST(h[i] == expected, "call " << i);
    }
}

BOOST_AUTO_TEST_CASE(bad_result_ranges_throw_before_enqueueing)
{
    bc::vector<cl_uint> d = to_device(std::vector<cl_uint>(1000, 1u), queue);
    bc::vector<cl_uint> out = to_device(std::vector<cl_uint>(2, 5u), queue);
    // No room: result at the end of its buffer (a buffer of exactly two elements).
    bc::buffer two(context, 2 * sizeof(cl_uint));
    const auto past = bc::make_buffer_iterator<cl_uint>(two, 2);
    BOOST_CHECK_THROW(clprim::reduce(d.begin(), d.end(), past, queue), clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::reduce(d.begin(), d.end(), past, queue, bc::multiplies<cl_uint>(), 1u),
                      clprim::invalid_argument_error);
    // Inside the input.
    BOOST_CHECK_THROW(clprim::reduce(d.begin(), d.end(), d.begin() + 10, queue), clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::reduce(d.begin(), d.end(), d.begin(), queue, bc::max<cl_uint>(), 0u),
                      clprim::invalid_argument_error);
    // Another context.
    bc::context ctx2(device);
    bc::vector<cl_uint> foreign(4, ctx2);
    BOOST_CHECK_THROW(clprim::reduce(d.begin(), d.end(), foreign.begin(), queue), clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::reduce(d.begin(), d.end(), foreign.begin(), queue, bc::bit_xor<cl_uint>(), 0u),
                      clprim::invalid_argument_error);
    const auto h = to_host(out, queue);
    BOOST_TEST(h[0] == 5u);
    BOOST_TEST(h[1] == 5u);
    // The empty range writes the identity.
    clprim::reduce(d.begin(), d.begin(), out.begin(), queue, bc::bit_and<cl_uint>(), ~0u);
    BOOST_TEST(to_host(out, queue)[0] == ~0u);
}

BOOST_AUTO_TEST_SUITE_END()

// clprim::reduce: every variant x op x type over the standard sizes and several distributions,
// against host references (exact for integers and for integer-valued floats, a rounding-error
// bound for other float sums); sub-ranges (nothing outside is read), empty ranges, bad input,
// the input left unchanged, and sizes past 2^24.
#define BOOST_TEST_MODULE clprim_reduce
#include "clprim_test_fixture.hpp"

#include <sstream>

using namespace clprim_test;

namespace {

// Not commutative: the reductions with it take the order-keeping kernels.
BOOST_COMPUTE_FUNCTION(cl_long, read_form_first_nonzero, (cl_long a, cl_long b), { return a != 0 ? a : b; });

const clprim::reduce_variant all_variants[] = {
    clprim::reduce_variant::reduce0, clprim::reduce_variant::reduce1, clprim::reduce_variant::reduce2,
    clprim::reduce_variant::reduce3, clprim::reduce_variant::reduce4, clprim::reduce_variant::reduce5,
    clprim::reduce_variant::reduce6, clprim::reduce_variant::fast};
const clprim::reduce_op all_ops[] = {clprim::reduce_op::sum, clprim::reduce_op::min, clprim::reduce_op::max};

const char* name_of(clprim::reduce_variant v)
{
    static const char* names[] = {"reduce0", "reduce1", "reduce2", "reduce3", "reduce4", "reduce5", "reduce6", "fast"};
    return names[int(v)];
}
const char* name_of(clprim::reduce_op op)
{
    static const char* names[] = {"sum", "min", "max"};
    return names[int(op)];
}

template <class T>
T identity_of(clprim::reduce_op op)
{
    if (op == clprim::reduce_op::min) return std::numeric_limits<T>::max();
    if (op == clprim::reduce_op::max) return std::numeric_limits<T>::lowest();
    return T(0);
}

// Host reference for min/max (fmin/fmax for floats, as the kernels) and for integer sums
// (wrapping, computed in the unsigned type).
template <class T>
T host_reduce(const std::vector<T>& v, clprim::reduce_op op)
{
    T r = identity_of<T>(op);
    if constexpr (std::is_integral_v<T>) {
        if (op == clprim::reduce_op::sum) {
            using U = std::make_unsigned_t<T>;
            U u = 0;
            for (T x : v) u = U(u + U(x));
            return T(u);
        }
    }
    for (T x : v) {
        if constexpr (std::is_floating_point_v<T>) {
            if (op == clprim::reduce_op::sum) r += x; // not used for float sums (see check_result)
            else r = op == clprim::reduce_op::min ? std::fmin(r, x) : std::fmax(r, x);
        } else {
            r = op == clprim::reduce_op::min ? std::min(r, x) : std::max(r, x);
        }
    }
    return r;
}

// Compares the device's result with the host's. Float sums: against a long-double sum, within a
// bound on the rounding error of any summation tree of this depth (a lost or doubled element of
// these data sets is far outside it); exact = true when every partial sum is representable.
template <class T>
bool check_result(T got, const std::vector<T>& v, clprim::reduce_op op, bool exact, std::string& why)
{
    std::ostringstream os;
    os.precision(20);
    if constexpr (std::is_floating_point_v<T>) {
        if (op == clprim::reduce_op::sum) {
            long double sum = 0, abs_sum = 0;
            for (T x : v) {
                sum += x;
                abs_sum += std::fabs(static_cast<long double>(x));
            }
            const long double eps = std::numeric_limits<T>::epsilon();
            const long double tol =
                exact ? 0 : eps * abs_sum * (2 * std::sqrt(static_cast<long double>(v.size())) + 16) + eps * std::fabs(sum);
            const bool ok = std::fabs(static_cast<long double>(got) - sum) <= tol;
            if (!ok) os << "got " << got << " expected " << static_cast<double>(sum) << " (tolerance " << static_cast<double>(tol) << ")";
            why = os.str();
            return ok;
        }
    }
    const T want = host_reduce(v, op);
    const bool ok = got == want;
    if (!ok) os << "got " << +got << " expected " << +want;
    why = os.str();
    return ok;
}

// Integer-valued floats in [-8, 8]: every partial sum of up to 2^20 of them is exact in float.
template <class T>
std::vector<T> small_integers(std::size_t n, std::uint64_t seed)
{
    std::mt19937_64 rng(seed + n);
    std::vector<T> v(n);
    for (auto& x : v) x = T(int(rng() % 17) - 8);
    return v;
}

// Runs every variant and op over host on the device, checks the results and that the input
// stayed as it was. Returns the number of failures (each also reported).
template <class T>
void check_all(const std::vector<T>& host, const std::string& label, bool exact_float_sum,
               bc::command_queue& queue, const std::vector<clprim::reduce_op>& ops)
{
    auto dev = to_device(host, queue);
    for (auto op : ops) {
        for (auto variant : all_variants) {
            const T got = clprim::reduce(dev.begin(), dev.end(), queue, op, variant);
            std::string why;
            BOOST_TEST(check_result(got, host, op, exact_float_sum, why),
                       type_label<T>() << " " << name_of(op) << " " << name_of(variant) << " n=" << host.size()
                                       << " " << label << ": " << why);
        }
    }
    BOOST_TEST(bit_equal(to_host(dev, queue), host), "input changed: " << type_label<T>() << " n=" << host.size());
}

std::vector<clprim::reduce_op> ops_list() { return {all_ops[0], all_ops[1], all_ops[2]}; }

} // namespace

BOOST_FIXTURE_TEST_SUITE(reduce, fixture)

BOOST_AUTO_TEST_CASE_TEMPLATE(every_variant_op_size_distribution, T, all_types)
{
    if (!type_runs_here<T>()) return;
    const distribution dists[] = {distribution::random, distribution::sorted, distribution::all_equal,
                                  distribution::extremes};
    for (std::size_t n : standard_sizes(true)) {
        const bool large = n > 100000;
        for (auto d : dists) {
            // The size past 2^20 with random data, every variant, for sums of every type and
            // one of min/max per type: on PoCL every kernel launched over a large grid is
            // compiled a second time, and compiling dominates this suite's run time there.
            if (large && d != distribution::random) continue;
            const auto host = make_data<T>(n, d);
            if (large) {
                check_all(host, name_of(d), false, queue,
                          {clprim::reduce_op::sum, std::is_signed_v<T> ? clprim::reduce_op::min : clprim::reduce_op::max});
            } else if (std::is_floating_point_v<T> && d == distribution::extremes) {
                // Sums of ±max overflow in an order-dependent way: min/max only.
                check_all(host, name_of(d), false, queue, {clprim::reduce_op::min, clprim::reduce_op::max});
            } else {
                check_all(host, name_of(d), false, queue, ops_list());
            }
        }
        if constexpr (std::is_floating_point_v<T>) {
            // Exact float sums: catch any element lost or counted twice.
            check_all(small_integers<T>(n, 7), "small_integers", true, queue, {clprim::reduce_op::sum});
        }
    }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(empty_range_gives_identity, T, all_types)
{
    if (!type_runs_here<T>()) return;
    bc::vector<T> v(std::size_t(4), T(5), queue);
    for (auto op : all_ops)
        for (auto variant : all_variants) {
            BOOST_TEST(clprim::reduce(v.begin(), v.begin(), queue, op, variant) == identity_of<T>(op));
            BOOST_TEST(clprim::reduce(v.begin() + 2, v.begin() + 2, queue, op, variant) == identity_of<T>(op));
        }
}

// Sub-ranges at every alignment: the elements around them are values that would change every
// result if read (the fast variant's vector loads start at an aligned element inside the range).
BOOST_AUTO_TEST_CASE_TEMPLATE(sub_ranges_read_nothing_outside, T, all_types)
{
    if (!type_runs_here<T>()) return;
    const T poison_min = std::is_floating_point_v<T> ? T(-1e30) : std::numeric_limits<T>::lowest();
    const T poison_max = std::is_floating_point_v<T> ? T(1e30) : std::numeric_limits<T>::max();
    for (std::size_t total : {std::size_t(40), std::size_t(1029), std::size_t(70000)}) {
        std::vector<T> host(total);
        for (std::size_t i = 0; i < total; ++i) host[i] = (i % 2) ? poison_min : poison_max;
        auto dev = to_device(host, queue);
        for (std::size_t lo : {1, 2, 3, 5}) {
            for (std::size_t hi_gap : {1, 2, 3, 6}) {
                const std::size_t hi = total - hi_gap;
                std::vector<T> inner = small_integers<T>(hi - lo, lo * 31 + hi_gap);
                std::copy(inner.begin(), inner.end(), host.begin() + lo);
                bc::copy(inner.begin(), inner.end(), dev.begin() + lo, queue);
                for (auto op : all_ops)
                    for (auto variant : all_variants) {
                        const T got = clprim::reduce(dev.begin() + lo, dev.begin() + hi, queue, op, variant);
                        std::string why;
                        BOOST_TEST(check_result(got, inner, op, true, why),
                                   type_label<T>() << " " << name_of(op) << " " << name_of(variant) << " [" << lo
                                                   << ", " << hi << ") of " << total << ": " << why);
                    }
                BOOST_TEST(bit_equal(to_host(dev, queue), host));
                // Restore the poison for the next sub-range.
                for (std::size_t i = lo; i < hi; ++i) host[i] = (i % 2) ? poison_min : poison_max;
                bc::copy(host.begin(), host.end(), dev.begin(), queue);
            }
        }
    }
}

// The fast variant's two loops forced on any device (GPUs take the grid stride through
// stream_block.cl, CPUs the chunks): every type and op, sizes around the vector and load widths,
// sub-ranges at each alignment.
BOOST_AUTO_TEST_CASE_TEMPLATE(fast_both_layouts, T, all_types)
{
    if (!type_runs_here<T>()) return;
    for (const char* layout : {"stride", "chunks"}) {
        env_override force("CLPRIM_REDUCE_LAYOUT", layout);
        for (std::size_t n : {std::size_t(1), std::size_t(7), std::size_t(1029), std::size_t(65539),
                              (std::size_t(1) << 20) + 5}) {
            const auto host = small_integers<T>(n + 3, n);
            auto dev = to_device(host, queue);
            for (std::size_t lo : {0, 1, 3}) {
                const std::vector<T> inner(host.begin() + lo, host.begin() + lo + n);
                for (auto op : all_ops) {
                    const T got = clprim::reduce(dev.begin() + lo, dev.begin() + lo + n, queue, op);
                    std::string why;
                    BOOST_TEST(check_result(got, inner, op, true, why),
                               layout << " " << type_label<T>() << " " << name_of(op) << " n=" << n << " lo=" << lo
                                      << ": " << why);
                }
            }
        }
    }
}

// Every form of the value's read (CLPRIM_REDUCE_READ, primitives/reduce_pinned.hpp) on the small
// path (one work-group: the per-queue word; its kernel also between a caller's result range and
// the word) and the one-launch and ordered paths, both layouts, on an in-order
// and an out-of-order queue (the input uploaded without waiting just before: the call must run
// after it), two queues in turn (each its own word), 4- and 8-byte types, a sub-range.
BOOST_AUTO_TEST_CASE(every_read_form)
{
    bc::command_queue ooo(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    bc::command_queue second(context, device);
    for (int form = 0; form <= 9; ++form) {
        env_override force("CLPRIM_REDUCE_READ", std::to_string(form));
        // Both loops in turn (CPU devices take the small path only up to a few dozen elements with
        // chunks; with the grid stride up to a work-group's range, as GPUs do).
        env_override layout("CLPRIM_REDUCE_LAYOUT", form % 2 ? "stride" : "chunks");
        for (std::size_t n : {std::size_t(1), std::size_t(1024), std::size_t(1029), std::size_t(70001)}) {
            const auto host = make_data<cl_uint>(n + 1, distribution::random, unsigned(n + form));
            const std::vector<cl_uint> inner(host.begin() + 1, host.end());
            const cl_uint want = host_reduce(inner, clprim::reduce_op::sum);
            for (bc::command_queue* q : {&queue, &ooo, &second}) {
                bc::vector<cl_uint> dev(n + 1, context);
                bc::copy_async(host.begin(), host.end(), dev.begin(), *q);
                const cl_uint got = clprim::reduce(dev.begin() + 1, dev.end(), *q);
                BOOST_TEST(got == want, "form " << form << " n=" << n);
                // The small path's kernel between the caller's result range and the value's word
                // (its arguments are set again only where they changed), then the value again.
                bc::vector<cl_uint> res(3, context);
                clprim::reduce(dev.begin() + 1, dev.end(), res.begin() + 1, *q);
                BOOST_TEST(clprim::reduce(dev.begin(), dev.end() - 1, *q) ==
                               host_reduce(std::vector<cl_uint>(host.begin(), host.end() - 1), clprim::reduce_op::sum),
                           "form " << form << " n=" << n << " after a device result");
                std::vector<cl_uint> hres(3);
                bc::copy(res.begin(), res.end(), hres.begin(), *q);
                BOOST_TEST(hres[1] == want, "form " << form << " n=" << n << " device result");
                q->finish();
            }
            const auto h64 = make_data<cl_long>(n, distribution::random, unsigned(n));
            auto d64 = to_device(h64, queue);
            BOOST_TEST(clprim::reduce(d64.begin(), d64.end(), queue, clprim::reduce_op::max) ==
                           host_reduce(h64, clprim::reduce_op::max),
                       "form " << form << " long n=" << n);
            // A user operator (generated kernels) and a non-commutative one (the ordered path).
            BOOST_TEST(clprim::reduce(d64.begin(), d64.end(), queue, bc::max<cl_long>(),
                                      std::numeric_limits<cl_long>::lowest()) == host_reduce(h64, clprim::reduce_op::max),
                       "form " << form << " generated n=" << n);
            std::vector<cl_long> sparse(n, 0);
            sparse[n / 2] = 7;
            sparse[n - 1] = 9;
            auto dsparse = to_device(sparse, queue);
            BOOST_TEST(clprim::reduce(dsparse.begin(), dsparse.end(), queue, read_form_first_nonzero, cl_long(0)) ==
                           sparse[n / 2],
                       "form " << form << " ordered n=" << n);
        }
    }
    BOOST_CHECK_THROW(
        {
            env_override bad("CLPRIM_REDUCE_READ", "10");
            auto d = to_device(std::vector<cl_uint>(10, 1u), queue);
            (void)clprim::reduce(d.begin(), d.end(), queue);
        },
        clprim::invalid_argument_error);
}

// Past 2^24 elements (float counters would stop counting there; 32-bit index tricks too).
BOOST_AUTO_TEST_CASE(beyond_two_to_the_24)
{
    const std::size_t n = (std::size_t(1) << 24) + 7;
    std::vector<cl_uint> host(n);
    std::mt19937 rng(99);
    for (auto& x : host) x = rng();
    auto dev = to_device(host, queue);
    for (auto variant : all_variants) {
        std::string why;
        const cl_uint s = clprim::reduce(dev.begin(), dev.end(), queue, clprim::reduce_op::sum, variant);
        BOOST_TEST(check_result(s, host, clprim::reduce_op::sum, true, why), name_of(variant) << ": " << why);
        // A sub-range starting off the vector alignment.
        const cl_uint mx = clprim::reduce(dev.begin() + 1, dev.end(), queue, clprim::reduce_op::max, variant);
        const std::vector<cl_uint> tail(host.begin() + 1, host.end());
        BOOST_TEST(check_result(mx, tail, clprim::reduce_op::max, true, why), name_of(variant) << ": " << why);
    }
}

BOOST_AUTO_TEST_CASE(defaults_are_sum_and_fast)
{
    const std::vector<cl_int> host{3, -1, 4, -1, 5, -9, 2, 6};
    auto dev = to_device(host, queue);
    BOOST_TEST(clprim::reduce(dev.begin(), dev.end(), queue) == 9);
}

BOOST_AUTO_TEST_CASE(bad_variant_or_op_throws_and_leaves_data)
{
    const auto host = make_data<cl_int>(1000, distribution::random);
    auto dev = to_device(host, queue);
    BOOST_CHECK_THROW(clprim::reduce(dev.begin(), dev.end(), queue, clprim::reduce_op::sum,
                                     static_cast<clprim::reduce_variant>(42)),
                      clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::reduce(dev.begin(), dev.end(), queue, static_cast<clprim::reduce_op>(7)),
                      clprim::invalid_argument_error);
    // Also for an empty range: bad arguments are bad whatever the size.
    BOOST_CHECK_THROW(clprim::reduce(dev.begin(), dev.begin(), queue, static_cast<clprim::reduce_op>(-1)),
                      clprim::invalid_argument_error);
    BOOST_TEST(bit_equal(to_host(dev, queue), host));
}

BOOST_AUTO_TEST_CASE(bad_ranges_throw)
{
    auto dev = to_device(make_data<cl_uint>(100, distribution::random), queue);
    BOOST_CHECK_THROW(clprim::reduce(dev.end(), dev.begin(), queue), clprim::invalid_argument_error);
    bc::vector<cl_uint> other(100, context);
    BOOST_CHECK_THROW(clprim::reduce(dev.begin(), other.end(), queue), clprim::invalid_argument_error);
    // A buffer of another context.
    bc::context ctx2(device);
    bc::vector<cl_uint> foreign(100, ctx2);
    BOOST_CHECK_THROW(clprim::reduce(foreign.begin(), foreign.end(), queue), clprim::invalid_argument_error);
}

BOOST_AUTO_TEST_CASE(double_without_fp64_is_unsupported)
{
    if (device_under_test::get().has_fp64()) {
        BOOST_TEST_MESSAGE("device has fp64: nothing to check");
        return;
    }
    bc::vector<cl_double> v(10, context);
    BOOST_CHECK_THROW(clprim::reduce(v.begin(), v.end(), queue), clprim::unsupported_error);
}

BOOST_AUTO_TEST_SUITE_END()

// clprim::histogram against a host histogram (every type, bin count, size and distribution the
// issue lists, accumulation, bad input), and the work-group histogram building block on its own
// in the radix sort's digit-count mode.
#define BOOST_TEST_MODULE clprim_histogram
#include "clprim_test_fixture.hpp"

#include <clprim/detail/device_limits.hpp>
#include <clprim/detail/primitives_kernels.hpp>

using namespace clprim_test;
namespace cd = clprim::detail;


namespace clprim {
namespace detail {
// The tuning hook histogram.cpp defines (not in a public header): forces local budget, counter
// copies, work-group size and path (1 local/tiled, 2 global atomics) so every path runs here.
void histogram_impl_tuned(const buffer_range& in, const buffer_range& counts, std::size_t num_bins,
                          element_type type, const void* lower, const void* upper,
                          bc::command_queue& queue, std::size_t local_budget, unsigned copies,
                          std::size_t wg_size, int path);
} // namespace detail
} // namespace clprim

namespace {

using float_types = boost::mpl::list<cl_float, cl_double>;
using path_types = boost::mpl::list<cl_uint, cl_long, cl_float>;
__extension__ typedef unsigned __int128 u128;

// The bin of x per API.md, or nb if x is not counted. Integers exactly (128-bit); floats by the
// documented formula: min(nb - 1, rtz((x * h - lower * h) * scale)), scale = nb / (upper * h -
// lower * h) in T, h = 1, or 0.5 if upper - lower overflows, or doubled until scale is finite.
template <class T>
struct host_binner {
    T lo, hi;
    std::size_t nb;
    T h = 1, lower_h = 0, scale = 0;
    host_binner(T l, T u, std::size_t bins) : lo(l), hi(u), nb(bins)
    {
        if constexpr (std::is_floating_point_v<T>) {
            if (std::isinf(hi - lo)) h = T(0.5);
            scale = T(nb) / (hi * h - lo * h);
            while (std::isinf(scale)) {
                h *= 2;
                scale = T(nb) / (hi * h - lo * h);
            }
            lower_h = lo * h;
        }
    }
    std::size_t operator()(T x) const
    {
        if constexpr (std::is_floating_point_v<T>) {
            if (!(x >= lo && x < hi)) return nb;
            volatile T d = x * h - lower_h; // volatile: no contraction into an fma
            const T y = d * scale;
            std::size_t q;
            if (std::isnan(y)) q = 0;
            else if (y >= T(4294967295.0)) q = 4294967295u;
            else q = std::size_t(y);
            return std::min(q, nb - 1);
        } else {
            using U = std::make_unsigned_t<T>;
            const U d = U(U(x) - U(lo)), r = U(U(hi) - U(lo));
            if (d >= r) return nb;
            return std::size_t(u128(d) * nb / r);
        }
    }
};

template <class T>
std::vector<cl_uint> host_histogram(const std::vector<T>& v, std::size_t nb, T lo, T hi, std::vector<cl_uint> counts)
{
    host_binner<T> bin(lo, hi, nb);
    for (T x : v) {
        const std::size_t b = bin(x);
        if (b < nb) ++counts[b];
    }
    return counts;
}

// Runs clprim::histogram (or the tuned hook) on data placed at an offset inside a larger buffer
// (the values around it fall in range: reading outside the range would show), adding onto
// random counts placed inside a larger buffer with sentinels. Checks counts, sentinels and input.
template <class T>
void check_histogram(fixture& f, const std::vector<T>& data, std::size_t nb, T lo, T hi, const std::string& what,
                     int path = 0, std::size_t budget = 0, unsigned copies = 0, std::size_t wg = 0)
{
    if (!type_runs_here<T>()) return;
    const std::size_t pad = 3, cpad = 5;
    std::vector<T> padded(pad, lo);
    padded.insert(padded.end(), data.begin(), data.end());
    padded.insert(padded.end(), pad, lo);
    std::mt19937 rng(unsigned(data.size() * 7 + nb));
    std::vector<cl_uint> counts(cpad + nb + cpad, 0xabcdef01u);
    for (std::size_t i = 0; i < nb; ++i) counts[cpad + i] = rng() % 1000; // accumulate onto these
    auto din = to_device(padded, f.queue);
    auto dcounts = to_device(counts, f.queue);
    auto first = din.begin() + pad, last = din.begin() + pad + data.size();
    if (path == 0 && budget == 0 && copies == 0 && wg == 0) {
        clprim::histogram(first, last, dcounts.begin() + cpad, nb, lo, hi, f.queue);
    } else {
        const auto in = cd::checked_range(first, last, f.queue, "test");
        const auto out = cd::checked_output(dcounts.begin() + cpad, nb, f.queue, "test");
        cd::histogram_impl_tuned(in, out, nb, cd::element_type_of<T>(), &lo, &hi, f.queue, budget, copies, wg, path);
    }
    const auto got = to_host(dcounts, f.queue);
    std::vector<cl_uint> pre(counts.begin() + cpad, counts.begin() + cpad + nb);
    const auto expect = host_histogram(data, nb, lo, hi, pre);
    std::vector<cl_uint> got_bins(got.begin() + cpad, got.begin() + cpad + nb);
    std::size_t bad = 0, first_bad = 0;
    for (std::size_t b = 0; b < nb; ++b)
        if (got_bins[b] != expect[b] && bad++ == 0) first_bad = b;
    BOOST_TEST(bad == 0u, what << " " << type_label<T>() << " n=" << data.size() << " bins=" << nb << " path=" << path
                               << ": " << bad << " bins differ, first " << first_bad << " (got "
                               << (bad ? got_bins[first_bad] : 0) << ", want " << (bad ? expect[first_bad] : 0) << ")");
    for (std::size_t i = 0; i < cpad; ++i) {
        BOOST_TEST(got[i] == 0xabcdef01u);
        BOOST_TEST(got[cpad + nb + i] == 0xabcdef01u);
    }
    BOOST_TEST(bit_equal(to_host(din, f.queue), padded), what << ": input changed");
}

// Uniform values over [lo - r/8, hi + r/8) (clipped to the type), so some fall outside.
template <class T>
std::vector<T> uniform_around(std::size_t n, T lo, T hi, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::vector<T> v(n);
    const long double l = lo, u = hi, m = (u - l) / 8;
    const long double a = std::max<long double>(l - m, (long double)std::numeric_limits<T>::lowest());
    const long double b = std::min<long double>(u + m, (long double)std::numeric_limits<T>::max());
    std::uniform_real_distribution<long double> dist(a, b);
    for (auto& x : v) {
        if constexpr (std::is_integral_v<T>) {
            const long double y = std::floor(dist(rng));
            x = y >= b ? std::numeric_limits<T>::max() : y <= a ? T(a) : T(y);
        } else {
            x = T(dist(rng));
        }
    }
    return v;
}

// A per-type range [lo, hi) for nb bins; shift_width: bins of a power-of-two width (the shift
// path) rather than a width that does not divide (the general path).
template <class T>
std::pair<T, T> range_for(std::size_t nb, bool shift_width)
{
    if constexpr (std::is_floating_point_v<T>) {
        return shift_width ? std::pair<T, T>(T(0), T(nb)) : std::pair<T, T>(T(-3.7), T(1234.1));
    } else {
        const T lo = std::is_signed_v<T> ? T(-12345) : T(1000);
        return {lo, shift_width ? T(lo + T(nb * 16)) : T(lo + T(nb * 37 + 5))};
    }
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(histogram, fixture)

BOOST_AUTO_TEST_CASE_TEMPLATE(uniform_all_bins_and_sizes, T, all_types)
{
    if (!type_runs_here<T>()) return;
    const std::size_t bins[] = {1, 2, 7, 255, 256, 257, 4096, 65536};
    const std::size_t sizes[] = {0, 1, 100, 4097, 65537};
    for (std::size_t nb : bins)
        for (std::size_t n : sizes)
            for (bool shift : {false, true}) {
                const auto [lo, hi] = range_for<T>(nb, shift);
                check_histogram<T>(*this, uniform_around<T>(n, lo, hi, n + nb), nb, lo, hi, "uniform");
            }
    // The largest size for a few bin counts.
    for (std::size_t nb : {std::size_t(7), std::size_t(256), std::size_t(65536)}) {
        const auto [lo, hi] = range_for<T>(nb, nb == 256);
        check_histogram<T>(*this, uniform_around<T>((1u << 20) + 3, lo, hi, nb), nb, lo, hi, "uniform large");
    }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(all_in_one_bin, T, all_types)
{
    if (!type_runs_here<T>()) return;
    for (std::size_t nb : {std::size_t(1), std::size_t(256), std::size_t(4096)}) {
        const auto [lo, hi] = range_for<T>(nb, false);
        for (std::size_t n : {std::size_t(4097), std::size_t(1u << 20) + 3}) {
            check_histogram<T>(*this, std::vector<T>(n, lo), nb, lo, hi, "one bin (first)");
            check_histogram<T>(*this, std::vector<T>(n, T(hi - T(1))), nb, lo, hi, "one bin (last)");
        }
    }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(out_of_range, T, all_types)
{
    if (!type_runs_here<T>()) return;
    const auto [lo, hi] = range_for<T>(256, false);
    std::vector<T> v;
    for (std::size_t i = 0; i < 65537; ++i) {
        switch (i % 4) {
        case 0: v.push_back(hi); break; // upper is exclusive
        case 1: v.push_back(T(lo - T(1))); break;
        case 2: v.push_back(std::numeric_limits<T>::max()); break;
        default: v.push_back(std::numeric_limits<T>::lowest()); break;
        }
    }
    check_histogram<T>(*this, v, 256, lo, hi, "out of range");
    if constexpr (std::is_floating_point_v<T>) {
        const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
        check_histogram<T>(*this, std::vector<T>{nan, -nan, inf, -inf, nan, T(0)}, 7, lo, hi, "nan/inf");
    }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(negative_and_extreme_integer_ranges, T, integer_types)
{
    using lim = std::numeric_limits<T>;
    std::mt19937_64 rng(7);
    std::vector<T> v(65537);
    for (auto& x : v) x = T(rng());
    for (std::size_t i = 0; i < v.size(); i += 5) v[i] = (i % 10) ? lim::max() : lim::lowest();
    for (std::size_t nb : {std::size_t(1), std::size_t(7), std::size_t(256), std::size_t(257), std::size_t(65536)}) {
        check_histogram<T>(*this, v, nb, lim::lowest(), lim::max(), "full range");
        check_histogram<T>(*this, v, nb, T(lim::lowest() + T(1)), lim::max(), "full range - 1");
        check_histogram<T>(*this, v, nb, lim::lowest(), T(lim::lowest() + T(3)), "bottom 3");
        check_histogram<T>(*this, v, nb, T(lim::max() - T(nb)), lim::max(), "top nb");
        check_histogram<T>(*this, v, nb, T(lim::max() / 3), T(lim::max() - T(lim::max() / 5)), "upper part");
    }
    if constexpr (std::is_signed_v<T>) {
        std::vector<T> neg(4097);
        for (std::size_t i = 0; i < neg.size(); ++i) neg[i] = T(-T(i % 1500) - T(2));
        for (std::size_t nb : {std::size_t(2), std::size_t(7), std::size_t(255), std::size_t(4096)}) {
            check_histogram<T>(*this, neg, nb, T(-1000), T(-3), "negative");
            check_histogram<T>(*this, neg, nb, T(-1024), T(0), "negative pow2");
        }
    }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(float_edges, T, float_types)
{
    if (!type_runs_here<T>()) return;
    using lim = std::numeric_limits<T>;
    for (std::size_t nb : {std::size_t(1), std::size_t(7), std::size_t(255), std::size_t(256), std::size_t(257)}) {
        for (auto [lo, hi] : {std::pair<T, T>(T(-1), T(1)), std::pair<T, T>(T(0.1), T(0.7)),
                              std::pair<T, T>(-lim::max(), lim::max()), std::pair<T, T>(T(0), lim::denorm_min() * 8),
                              std::pair<T, T>(-lim::infinity(), T(0)), std::pair<T, T>(T(1e30), lim::infinity())}) {
            std::vector<T> v;
            // Every bin edge, its neighbours, the bounds and the values just inside them.
            const T w = hi / T(nb) - lo / T(nb);
            for (std::size_t b = 0; b <= nb; ++b) {
                const T e = lo + T(b) * w;
                v.insert(v.end(), {e, std::nextafter(e, -lim::infinity()), std::nextafter(e, lim::infinity())});
            }
            v.insert(v.end(), {lo, hi, std::nextafter(hi, lo), std::nextafter(lo, hi), T(0), T(-0.0),
                               lim::denorm_min(), -lim::denorm_min(), lim::max(), lim::lowest(), lim::infinity(),
                               -lim::infinity(), lim::quiet_NaN()});
            check_histogram<T>(*this, v, nb, lo, hi, "float edges");
        }
    }
    // A value just below upper must land in the last bin, never past it.
    std::vector<T> below(1000, std::nextafter(T(1), T(0)));
    check_histogram<T>(*this, below, 3, T(0), T(1), "just below upper");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(every_path, T, path_types)
{
    // Tiled through a small local budget, global atomics, counter copies and odd work-group sizes,
    // forced, since the device's own choice takes only one of them.
    for (std::size_t nb : {std::size_t(7), std::size_t(257), std::size_t(4096), std::size_t(65536)}) {
        const auto [lo, hi] = range_for<T>(nb, false);
        const auto v = uniform_around<T>(65537, lo, hi, nb);
        check_histogram<T>(*this, v, nb, lo, hi, "tiled", 1, 1024 + 256);
        check_histogram<T>(*this, v, nb, lo, hi, "global", 2);
        check_histogram<T>(*this, v, nb, lo, hi, "copies 8", 1, 0, 8, 64);
        check_histogram<T>(*this, std::vector<T>(4097, lo), nb, lo, hi, "one bin, copies 4", 1, 0, 4, 32);
        check_histogram<T>(*this, std::vector<T>(4097, lo), nb, lo, hi, "one bin, global", 2);
        check_histogram<T>(*this, v, nb, lo, hi, "wg 1", 1, 4096 + 256, 1, 1);
    }
    const auto [lo, hi] = range_for<T>(65536, true);
    check_histogram<T>(*this, uniform_around<T>((1u << 20) + 3, lo, hi, 3), 65536, lo, hi, "tiled large", 1, 32768 + 256);
}

BOOST_AUTO_TEST_CASE(accumulates_over_calls)
{
    const auto a = uniform_around<cl_int>(4097, 0, 100, 1), b = uniform_around<cl_int>(65537, 0, 100, 2);
    auto da = to_device(a, queue), db = to_device(b, queue);
    bc::vector<cl_uint> counts(10, 0u, queue);
    clprim::histogram(da.begin(), da.end(), counts.begin(), 10, 0, 100, queue);
    clprim::histogram(db.begin(), db.end(), counts.begin(), 10, 0, 100, queue);
    auto expect = host_histogram(a, 10, 0, 100, std::vector<cl_uint>(10, 0));
    expect = host_histogram(b, 10, 0, 100, expect);
    BOOST_TEST(to_host(counts, queue) == expect);
}

BOOST_AUTO_TEST_CASE(bad_input_throws_and_changes_nothing)
{
    std::vector<cl_float> h{1, 2, 3};
    auto d = to_device(h, queue);
    std::vector<cl_uint> c0{5, 6, 7, 8};
    auto c = to_device(c0, queue);
    using clprim::invalid_argument_error;
    BOOST_CHECK_THROW(clprim::histogram(d.begin(), d.end(), c.begin(), 0, 0.f, 1.f, queue), invalid_argument_error);
    BOOST_CHECK_THROW(clprim::histogram(d.begin(), d.end(), c.begin(), 4, 1.f, 1.f, queue), invalid_argument_error);
    BOOST_CHECK_THROW(clprim::histogram(d.begin(), d.end(), c.begin(), 4, 2.f, 1.f, queue), invalid_argument_error);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    BOOST_CHECK_THROW(clprim::histogram(d.begin(), d.end(), c.begin(), 4, nan, 1.f, queue), invalid_argument_error);
    BOOST_CHECK_THROW(clprim::histogram(d.begin(), d.end(), c.begin(), 4, 0.f, nan, queue), invalid_argument_error);
    // Empty input is still checked.
    BOOST_CHECK_THROW(clprim::histogram(d.begin(), d.begin(), c.begin(), 0, 0.f, 1.f, queue), invalid_argument_error);
    std::vector<cl_int> hi{1, 2};
    auto di = to_device(hi, queue);
    BOOST_CHECK_THROW(clprim::histogram(di.begin(), di.end(), c.begin(), 4, 5, 5, queue), invalid_argument_error);
    BOOST_CHECK_THROW(clprim::histogram(di.begin(), di.end(), c.begin(), 4, 6, -5, queue), invalid_argument_error);
    // counts shorter than num_bins, and ranges from another context.
    BOOST_CHECK_THROW(clprim::histogram(d.begin(), d.end(), c.begin() + 1, 4, 0.f, 1.f, queue), invalid_argument_error);
    bc::context other(device);
    bc::command_queue other_queue(other, device);
    bc::vector<cl_float> od(3, 1.f, other_queue);
    bc::vector<cl_uint> oc(4, 0u, other_queue);
    BOOST_CHECK_THROW(clprim::histogram(od.begin(), od.end(), c.begin(), 4, 0.f, 1.f, queue), invalid_argument_error);
    BOOST_CHECK_THROW(clprim::histogram(d.begin(), d.end(), oc.begin(), 4, 0.f, 1.f, queue), invalid_argument_error);
    // Input and counts overlapping in one buffer.
    bc::vector<cl_uint> both(8, 1u, queue);
    BOOST_CHECK_THROW(clprim::histogram(both.begin(), both.begin() + 6, both.begin() + 4, 4, 0u, 9u, queue),
                      invalid_argument_error);
    BOOST_TEST(to_host(c, queue) == c0);
    BOOST_TEST(to_host(d, queue) == h);
    // Empty input with valid arguments: nothing changes.
    clprim::histogram(d.begin(), d.begin(), c.begin(), 4, 0.f, 1.f, queue);
    BOOST_TEST(to_host(c, queue) == c0);
}

// ---- digit-count mode: the work-group counting building block as the radix sort uses it ----

namespace {

// Builds the digit-count kernel for key type K with c counter copies per bin.
template <class K>
bc::kernel digit_kernel(bc::context& context, unsigned copies)
{
    const std::string opts = std::string(" -DDIGIT_KEY=") + (sizeof(K) == 4 ? "uint" : "ulong") +
                             " -DWG_HIST_COPIES=" + std::to_string(copies);
    auto program = cd::primitives_program(context, {"workgroup_histogram.cl", "histogram.cl"}, opts);
    return program.create_kernel("wg_digit_count");
}

// Runs wg_digit_count over keys[offset, offset + n) and checks the digit-major table against the host.
template <class K>
void check_digit_count(fixture& f, std::size_t n, unsigned shift, unsigned mask, unsigned copies,
                       std::size_t lsize, std::size_t items, std::size_t offset)
{
    std::mt19937_64 rng(n * 31 + shift * 7 + mask + copies);
    std::vector<K> keys(offset + n + 3);
    for (auto& k : keys) k = static_cast<K>(rng());
    // Some runs of equal keys, so several work-items hit one digit at once.
    for (std::size_t i = 0; i + 64 < keys.size(); i += 512)
        for (std::size_t j = 1; j < 64; ++j) keys[i + j] = keys[i];
    const std::size_t tile = lsize * items;
    const std::size_t groups = cd::ceil_div(n, tile);
    const std::size_t bins = std::size_t(mask) + 1;
    std::vector<cl_uint> expect(bins * groups, 0);
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t d = std::size_t((keys[offset + i] >> shift) & K(mask));
        ++expect[d * groups + i / tile];
    }
    if (groups == 0) return; // nothing to launch
    if (bins * copies * sizeof(cl_uint) > f.device.local_memory_size()) {
        BOOST_TEST_MESSAGE("digit count with " << bins << " bins x " << copies << " copies: exceeds local memory, skipped");
        return;
    }
    auto dkeys = to_device(keys, f.queue);
    bc::vector<cl_uint> dcounts(bins * groups, 0xdeadbeefu, f.queue); // plain stores overwrite all
    auto k = digit_kernel<K>(f.context, copies);
    k.set_arg(0, dkeys.get_buffer());
    k.set_arg(1, cl_ulong(offset));
    k.set_arg(2, cl_ulong(n));
    k.set_arg(3, cl_ulong(tile));
    k.set_arg(4, cl_uint(shift));
    k.set_arg(5, cl_uint(mask));
    k.set_arg(6, dcounts.get_buffer());
    k.set_arg(7, bc::local_buffer<cl_uint>(bins * copies));
    f.queue.enqueue_1d_range_kernel(k, 0, groups * lsize, lsize);
    const auto got = to_host(dcounts, f.queue);
    BOOST_TEST(got == expect, "digit count K=" << type_label<K>() << " n=" << n << " shift=" << shift
                                               << " mask=" << mask << " copies=" << copies << " lsize=" << lsize);
    BOOST_TEST(to_host(dkeys, f.queue) == keys); // keys untouched
}

} // namespace

BOOST_AUTO_TEST_CASE(digit_count_uint)
{
    for (unsigned copies : {1u, 2u, 8u})
        for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(100), std::size_t(4097), std::size_t(65537)}) {
            check_digit_count<cl_uint>(*this, n, 0, 0xff, copies, 128, 4, 0);
            check_digit_count<cl_uint>(*this, n, 28, 0xf, copies, 64, 3, 5);
        }
    check_digit_count<cl_uint>(*this, (1u << 20) + 3, 8, 0xff, 4, 256, 8, 1);
    check_digit_count<cl_uint>(*this, 4097, 0, 0, 2, 64, 2, 0);        // one digit
    check_digit_count<cl_uint>(*this, 65537, 16, 0xffff, 1, 256, 4, 0); // 65536 digits
}

BOOST_AUTO_TEST_CASE(digit_count_ulong)
{
    for (unsigned copies : {1u, 4u})
        for (std::size_t n : {std::size_t(1), std::size_t(100), std::size_t(4097), std::size_t(65537)}) {
            check_digit_count<cl_ulong>(*this, n, 56, 0xff, copies, 128, 4, 0);
            check_digit_count<cl_ulong>(*this, n, 32, 0x7ff, copies, 256, 2, 7);
        }
    check_digit_count<cl_ulong>(*this, (1u << 20) + 3, 0, 0xff, 8, 256, 16, 0);
}
BOOST_AUTO_TEST_SUITE_END()

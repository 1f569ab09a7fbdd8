// Device-wide inclusive and exclusive scans: every algorithm, in place or not, every type, the
// standard sizes and one above 2^24 (multi-level), ranges at offsets, init, wrap-around of
// integer sums, and bad arguments.
#define BOOST_TEST_MODULE clprim_scan
#include "clprim_test_fixture.hpp"

#include <clprim/detail/lookback_slots.hpp>

#include <thread>

using namespace clprim_test;

namespace {

const clprim::scan_algorithm all_algorithms[] = {clprim::scan_algorithm::hillis_steele,
                                                 clprim::scan_algorithm::blelloch,
                                                 clprim::scan_algorithm::fast};

const char* name_of(clprim::scan_algorithm a)
{
    switch (a) {
    case clprim::scan_algorithm::hillis_steele: return "hillis_steele";
    case clprim::scan_algorithm::blelloch: return "blelloch";
    case clprim::scan_algorithm::fast: return "fast";
    }
    return "?";
}

// a + b as OpenCL computes it: integers wrap (done in unsigned arithmetic, which C++ defines).
template <class T>
T add_wrap(T a, T b)
{
    if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    } else {
        return a + b;
    }
}

// Integers over their whole range (sums overflow and wrap); floats in [-1, 1] so that the
// tolerance below is meaningful.
template <class T>
std::vector<T> scan_data(std::size_t n, std::uint64_t seed)
{
    if constexpr (std::is_integral_v<T>) {
        return make_data<T>(n, distribution::random, seed);
    } else {
        std::mt19937_64 rng(seed ^ n);
        std::uniform_real_distribution<double> u(-1.0, 1.0);
        std::vector<T> v(n);
        for (auto& x : v) x = static_cast<T>(u(rng));
        return v;
    }
}

// Compares got with the host scan of in: exactly for integers; for floats within a bound on the
// rounding of any summation order, relative to the sum of magnitudes so far.
template <class T>
bool check_scan(const std::vector<T>& in, const std::vector<T>& got, bool inclusive, T init, const std::string& what)
{
    if (got.size() != in.size()) {
        BOOST_ERROR(what << ": size " << got.size() << ", expected " << in.size());
        return false;
    }
    if constexpr (std::is_integral_v<T>) {
        T s = init;
        for (std::size_t i = 0; i < in.size(); ++i) {
            if (inclusive) s = add_wrap(s, in[i]);
            if (got[i] != s) {
                BOOST_ERROR(what << ": element " << i << " is " << got[i] << ", expected " << s);
                return false;
            }
            if (!inclusive) s = add_wrap(s, in[i]);
        }
    } else {
        long double s = init, mag = std::fabs(static_cast<long double>(init));
        const long double eps = std::numeric_limits<T>::epsilon();
        for (std::size_t i = 0; i < in.size(); ++i) {
            if (inclusive) {
                s += in[i];
                mag += std::fabs(static_cast<long double>(in[i]));
            }
            const long double tol = 64 * eps * mag + std::numeric_limits<T>::min();
            if (!(std::fabs(static_cast<long double>(got[i]) - s) <= tol)) {
                BOOST_ERROR(what << ": element " << i << " is " << got[i] << ", expected " << double(s)
                                 << " (tolerance " << double(tol) << ")");
                return false;
            }
            if (!inclusive) {
                s += in[i];
                mag += std::fabs(static_cast<long double>(in[i]));
            }
        }
    }
    return true;
}

template <class T>
T init_value(bool inclusive)
{
    if (inclusive) return T(0);
    if constexpr (std::is_integral_v<T>) return static_cast<T>(std::numeric_limits<T>::max() - T(5)); // wraps soon
    else return T(0.5);
}

template <class T>
void run_case(std::size_t n, clprim::scan_algorithm algo, bool inclusive, bool in_place, bc::command_queue& queue)
{
    const std::string what = type_label<T>() + " n=" + std::to_string(n) + " " + name_of(algo) +
                             (inclusive ? " inclusive" : " exclusive") + (in_place ? " in place" : "");
    const auto host = scan_data<T>(n, 7 + n);
    auto d_in = to_device(host, queue);
    const T init = init_value<T>(inclusive);
    if (in_place) {
        if (inclusive) clprim::inclusive_scan(d_in.begin(), d_in.end(), d_in.begin(), queue, algo);
        else clprim::exclusive_scan(d_in.begin(), d_in.end(), d_in.begin(), queue, init, algo);
        BOOST_CHECK(check_scan(host, to_host(d_in, queue), inclusive, init, what));
    } else {
        bc::vector<T> d_out(n, queue.get_context());
        if (inclusive) clprim::inclusive_scan(d_in.begin(), d_in.end(), d_out.begin(), queue, algo);
        else clprim::exclusive_scan(d_in.begin(), d_in.end(), d_out.begin(), queue, init, algo);
        BOOST_CHECK(check_scan(host, to_host(d_out, queue), inclusive, init, what));
        BOOST_CHECK_MESSAGE(bit_equal(to_host(d_in, queue), host), what << ": input changed");
    }
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(scan, fixture)

// Every algorithm x inclusive/exclusive x in place or not x the standard sizes.
BOOST_AUTO_TEST_CASE_TEMPLATE(standard_sizes_all_variants, T, all_types)
{
    if (!type_runs_here<T>()) return;
    for (auto algo : all_algorithms)
        for (bool inclusive : {true, false})
            for (bool in_place : {false, true})
                for (auto n : standard_sizes()) run_case<T>(n, algo, inclusive, in_place, queue);
}

// Above 2^24: three levels of tile sums for 32-bit types. Every algorithm and direction for one
// integer and one float type, and the fast algorithm for the 64-bit ones.
BOOST_AUTO_TEST_CASE(above_2_pow_24)
{
    const std::size_t n = (std::size_t(1) << 24) + 7;
    for (auto algo : all_algorithms)
        for (bool inclusive : {true, false}) {
            run_case<cl_uint>(n, algo, inclusive, !inclusive, queue);
            run_case<cl_float>(n, algo, inclusive, inclusive, queue);
        }
    run_case<cl_long>(n, clprim::scan_algorithm::fast, false, false, queue);
    if (type_runs_here<cl_double>()) run_case<cl_double>(n, clprim::scan_algorithm::fast, true, false, queue);
}

// `fast` picks its path by device (single-pass look-back on GPUs, chunks elsewhere): each path
// forced here on the device under test, every type, in place or not. The
// largest size has hundreds of look-back tiles, far more than run at once on a CPU device, so
// tiles really wait on predecessors that are still running.
BOOST_AUTO_TEST_CASE_TEMPLATE(every_fast_path, T, all_types)
{
    if (!type_runs_here<T>()) return;
    for (const char* path : {"lookback", "chunks", "tiles"}) {
        env_override force("CLPRIM_SCAN_PATH", path);
        BOOST_TEST_MESSAGE("CLPRIM_SCAN_PATH=" << path);
        for (bool inclusive : {true, false})
            for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(4095), std::size_t(4097),
                                  std::size_t(65537), (std::size_t(1) << 20) + 3})
                run_case<T>(n, clprim::scan_algorithm::fast, inclusive, n % 2 == 1, queue);
    }
}

// One host thread's look-back calls in a row whose arguments change one at a time (the kernel's
// arguments are set again only where they changed, scan.cpp's lookback_args): init, inclusive or
// not, the offsets of sub-ranges, the length, in place, another buffer, the same call again.
BOOST_AUTO_TEST_CASE(lookback_arguments_change_between_calls)
{
    env_override force("CLPRIM_SCAN_PATH", "lookback");
    const std::size_t n = 3000;
    const auto host = scan_data<cl_uint>(n, 11);
    auto d = to_device(host, queue);
    bc::vector<cl_uint> out(n, context), other(n, context);
    auto check = [&](std::size_t lo, std::size_t hi, std::size_t at, bool inclusive, cl_uint init,
                     const bc::vector<cl_uint>& o, const char* what) {
        const std::vector<cl_uint> part(host.begin() + lo, host.begin() + hi);
        const auto got = to_host(o, queue);
        BOOST_CHECK(check_scan(part, std::vector<cl_uint>(got.begin() + at, got.begin() + at + (hi - lo)), inclusive,
                               init, what));
    };
    clprim::exclusive_scan(d.begin(), d.end(), out.begin(), queue, 5u);
    check(0, n, 0, false, 5u, out, "exclusive init 5");
    clprim::exclusive_scan(d.begin(), d.end(), out.begin(), queue, 7u);
    check(0, n, 0, false, 7u, out, "exclusive init 7");
    clprim::inclusive_scan(d.begin(), d.end(), out.begin(), queue);
    check(0, n, 0, true, 0u, out, "inclusive");
    clprim::inclusive_scan(d.begin() + 3, d.end(), out.begin() + 1, queue);
    check(3, n, 1, true, 0u, out, "inclusive, offsets 3 and 1");
    clprim::inclusive_scan(d.begin() + 3, d.end() - 100, out.begin() + 1, queue);
    check(3, n - 100, 1, true, 0u, out, "shorter");
    clprim::inclusive_scan(d.begin(), d.begin() + 1000, other.begin(), queue);
    check(0, 1000, 0, true, 0u, other, "another output");
    clprim::exclusive_scan(d.begin(), d.end(), out.begin(), queue, 5u);
    check(0, n, 0, false, 5u, out, "exclusive init 5 again");
    clprim::exclusive_scan(d.begin(), d.end(), out.begin(), queue, 5u);
    check(0, n, 0, false, 5u, out, "the same call again");
    clprim::exclusive_scan(d.begin(), d.end(), d.begin(), queue, 2u);
    check(0, n, 0, false, 2u, d, "in place");
}

// GPUs scan with the look-back by default: here with tens of thousands of tiles, many times what
// the device runs at once, so most tiles start only after earlier ones have finished and the
// chain of published prefixes is long (a hang or a lost prefix would show here). Skipped on CPU
// devices, which run every_fast_path's look-back cases.
BOOST_AUTO_TEST_CASE(lookback_many_tiles_on_gpus)
{
    if (!on_gpu()) return;
    env_override force("CLPRIM_SCAN_PATH", "lookback");
    run_case<cl_uint>((std::size_t(1) << 28) + 5, clprim::scan_algorithm::fast, true, false, queue);
    run_case<cl_ulong>((std::size_t(1) << 26) + 3, clprim::scan_algorithm::fast, false, true, queue);
}

// The decoupled fallback (scan_lookback.cl): CLPRIM_LOOKBACK=fallback makes every tile that
// finds a predecessor's slot empty reduce that predecessor's input itself instead of waiting;
// results must be identical (bit for bit: the fallback repeats the owner's operations in order,
// floats included). Every type, in place (the owner may overwrite its input once it has
// published) and not, with small tiles (CLPRIM_SCAN_ITEMS=2) for thousands of tiles on CPU
// devices and the default tiles with 2^26 on GPUs.
BOOST_AUTO_TEST_CASE_TEMPLATE(lookback_fallback_every_tile, T, all_types)
{
    if (!type_runs_here<T>()) return;
    env_override force("CLPRIM_SCAN_PATH", "lookback");
    env_override fallback("CLPRIM_LOOKBACK", "fallback");
    const bool gpu = on_gpu();
    env_override items("CLPRIM_SCAN_ITEMS", gpu ? nullptr : "2");
    std::vector<std::size_t> sizes{1, 511, 513, 4097, 65537, (std::size_t(1) << 20) + 3};
    if (gpu) sizes.push_back((std::size_t(1) << 26) + 1);
    for (bool inclusive : {true, false})
        for (std::size_t n : sizes) {
            run_case<T>(n, clprim::scan_algorithm::fast, inclusive, false, queue);
            run_case<T>(n, clprim::scan_algorithm::fast, inclusive, true, queue);
        }
}

// The look-back's status slots stay with the queue from call to call, tagged by an epoch per
// call instead of cleared (clprim/detail/lookback_slots.hpp): calls of different sizes and
// element widths reuse one buffer (a small call after a large one leaves stale words further
// on; a 64-bit call reads words a 32-bit call wrote), and the epoch wraps (the buffer is cleared
// then). A stale word taken for this call's would give wrong sums; a counter not reset, tile
// indices past the end.
BOOST_AUTO_TEST_CASE(lookback_slots_across_calls)
{
    env_override force("CLPRIM_SCAN_PATH", "lookback");
    const std::size_t big = (std::size_t(1) << 20) + 3;
    const std::size_t sizes[] = {big, 5000, 1, 65537, big, 4097};
    int i = 0;
    for (std::size_t n : sizes) {
        run_case<cl_uint>(n, clprim::scan_algorithm::fast, i % 2 == 0, false, queue);
        run_case<cl_ulong>(n, clprim::scan_algorithm::fast, i % 2 == 1, i % 3 == 0, queue);
        ++i;
    }
    // Across the wrap: the epochs before it, then 1 again on a cleared buffer.
    clprim::detail::set_next_lookback_epoch(queue, clprim::detail::max_lookback_epoch - 1);
    for (std::size_t n : {big, std::size_t(4097), big, std::size_t(70000)})
        run_case<cl_uint>(n, clprim::scan_algorithm::fast, false, false, queue);
    run_case<cl_ulong>(big, clprim::scan_algorithm::fast, true, false, queue);
}

// Two host threads scanning at once on one in-order queue, then each on a queue of its own: the
// slots are handed out under a lock, and calls on one queue may reach it in any order of their
// epochs (a kernel ignores every other epoch's words). Each thread checks its own results; the
// test asserts afterwards (Boost.Test's checks are not thread-safe).
BOOST_AUTO_TEST_CASE(lookback_scans_from_two_threads)
{
    env_override force("CLPRIM_SCAN_PATH", "lookback");
    for (bool shared_queue : {true, false}) {
        const auto failure = run_on_two_threads(
            context, device, shared_queue ? &queue : nullptr, 6, [&](int who, bc::command_queue& q, int round) {
                const std::size_t n = (round % 2 ? 70001 : 300007) + std::size_t(who) * 13;
                const auto host = make_data<cl_uint>(n, distribution::random, std::uint64_t(who * 100 + round));
                std::vector<cl_uint> expect(n);
                cl_uint s = 5;
                for (std::size_t i = 0; i < n; ++i) {
                    expect[i] = s;
                    s += host[i];
                }
                auto d = to_device(host, q);
                clprim::exclusive_scan(d.begin(), d.end(), d.begin(), q, cl_uint(5), clprim::scan_algorithm::fast);
                const long diff = first_difference(to_host(d, q), expect);
                return diff < 0 ? std::string() : "round " + std::to_string(round) + " n=" + std::to_string(n) +
                                                       ": first difference at " + std::to_string(diff);
            });
        for (int who = 0; who < 2; ++who)
            BOOST_TEST(failure[who].empty(), (shared_queue ? "one queue" : "own queues") << ", thread " << who << ": " << failure[who]);
    }
}

// Ranges that start and end inside their buffers: nothing outside [result, result + n) changes.
BOOST_AUTO_TEST_CASE_TEMPLATE(offsets_and_guards, T, all_types)
{
    if (!type_runs_here<T>()) return;
    for (auto algo : all_algorithms)
        for (std::size_t n : {std::size_t(1), std::size_t(33), std::size_t(5000), std::size_t(70001)}) {
            const auto host_in = scan_data<T>(n + 10, 99 + n);
            std::vector<T> host_out(n + 20, static_cast<T>(42));
            auto d_in = to_device(host_in, queue);
            auto d_out = to_device(host_out, queue);
            const T init = init_value<T>(false);
            clprim::exclusive_scan(d_in.begin() + 3, d_in.begin() + 3 + n, d_out.begin() + 11, queue, init, algo);
            const auto got = to_host(d_out, queue);
            const std::vector<T> in(host_in.begin() + 3, host_in.begin() + 3 + n);
            const std::vector<T> res(got.begin() + 11, got.begin() + 11 + n);
            const std::string what = type_label<T>() + " offsets n=" + std::to_string(n) + " " + name_of(algo);
            BOOST_CHECK(check_scan(in, res, false, init, what));
            bool guards = true;
            for (std::size_t i = 0; i < got.size(); ++i)
                if ((i < 11 || i >= 11 + n) && got[i] != static_cast<T>(42)) guards = false;
            BOOST_CHECK_MESSAGE(guards, what << ": wrote outside the output range");
            BOOST_CHECK_MESSAGE(bit_equal(to_host(d_in, queue), host_in), what << ": input changed");
        }
}

// Integer sums wrap like OpenCL arithmetic: all-max input overflows on every step.
BOOST_AUTO_TEST_CASE_TEMPLATE(integer_wrap, T, integer_types)
{
    const std::size_t n = 10007;
    const std::vector<T> host(n, std::numeric_limits<T>::max());
    for (auto algo : all_algorithms) {
        auto d = to_device(host, queue);
        bc::vector<T> out(n, context);
        clprim::inclusive_scan(d.begin(), d.end(), out.begin(), queue, algo);
        BOOST_CHECK(check_scan(host, to_host(out, queue), true, T(0), type_label<T>() + " wrap " + name_of(algo)));
    }
}

// Default arguments: exclusive from 0, algorithm fast.
BOOST_AUTO_TEST_CASE(defaults)
{
    const auto host = scan_data<cl_int>(3000, 5);
    auto d = to_device(host, queue);
    bc::vector<cl_int> out(host.size(), context);
    clprim::exclusive_scan(d.begin(), d.end(), out.begin(), queue);
    BOOST_CHECK(check_scan(host, to_host(out, queue), false, cl_int(0), "defaults exclusive"));
    clprim::inclusive_scan(d.begin(), d.end(), out.begin(), queue);
    BOOST_CHECK(check_scan(host, to_host(out, queue), true, cl_int(0), "defaults inclusive"));
}

// Bad input throws before anything is enqueued and leaves the data as it was.
BOOST_AUTO_TEST_CASE(bad_arguments)
{
    const auto host = scan_data<cl_uint>(1000, 3);
    auto d = to_device(host, queue);
    // Output overlapping the input other than exactly in place.
    BOOST_CHECK_THROW(clprim::inclusive_scan(d.begin(), d.begin() + 500, d.begin() + 1, queue),
                      clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::exclusive_scan(d.begin() + 10, d.begin() + 500, d.begin(), queue, 0u),
                      clprim::invalid_argument_error);
    // Reversed range, output running past its buffer, unknown algorithm.
    BOOST_CHECK_THROW(clprim::inclusive_scan(d.begin() + 5, d.begin(), d.begin(), queue), clprim::invalid_argument_error);
    bc::vector<cl_uint> small(10, context);
    BOOST_CHECK_THROW(clprim::inclusive_scan(d.begin(), d.end(), small.begin(), queue), clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::exclusive_scan(d.begin(), d.end(), d.begin(), queue, 0u, static_cast<clprim::scan_algorithm>(17)),
                      clprim::invalid_argument_error);
    // Buffers of another context.
    bc::context other(device);
    bc::vector<cl_uint> foreign(1000, other);
    BOOST_CHECK_THROW(clprim::inclusive_scan(d.begin(), d.end(), foreign.begin(), queue), clprim::invalid_argument_error);
    BOOST_CHECK(bit_equal(to_host(d, queue), host));
    // Non-overlapping parts of one buffer are fine.
    clprim::inclusive_scan(d.begin(), d.begin() + 400, d.begin() + 500, queue);
    const auto got = to_host(d, queue);
    BOOST_CHECK(check_scan(std::vector<cl_uint>(host.begin(), host.begin() + 400),
               std::vector<cl_uint>(got.begin() + 500, got.begin() + 900), true, 0u, "disjoint parts of one buffer"));
}

BOOST_AUTO_TEST_SUITE_END()

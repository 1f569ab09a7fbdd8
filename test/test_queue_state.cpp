// Device state kept per queue (queue_state: the look-back slots, the one-sweep status words) across
// growing and shrinking sequences of calls on one queue. Issue #34: a scan of 3 tiles after one of
// 2 grew the slot buffer to 36 bytes, which an 8-byte fill refused (CL_INVALID_VALUE), and every
// later call on that queue threw. Every look-back user runs here in such sequences: scans of every
// element type with the sum and an operator, copy_if (its count scan), the one-sweep radix sort of
// keys and of pairs. On CPU devices the single-pass paths are forced with small tiles (the bug
// needs one tile more than the last call); GPUs run their default tiles, with sizes that cross
// them (8192-element scan tiles: 16384 then 24576 was the reported sequence).
#define BOOST_TEST_MODULE clprim_queue_state
#include "clprim_test_fixture.hpp"
#include "host_operators.hpp"

#include <boost/compute/function.hpp>
#include <boost/compute/functional.hpp>

#include <memory>

using namespace clprim_test;

namespace {

// Sizes in the order a program might call: tile counts that go up by one (the reported
// sequence), down, far up and back. 512-element tiles on CPU devices (SCAN_ITEMS=2), 8192 on GPUs.
std::vector<std::size_t> call_sequence()
{
    return {1024, 1536, 512, 1024, 4096, 2560, 16384, 24576, 8192, 40961, 3, 100003, 24577, 1, 1536, 2048, 2560, 777};
}

// The single-pass paths forced where the device would not take them (CPU devices).
struct single_pass_paths {
    std::unique_ptr<env_override> scan, items, radix;
    explicit single_pass_paths(const bc::device& device)
    {
        if (clprim::detail::profile_of(device).is_gpu()) return;
        scan = std::make_unique<env_override>("CLPRIM_SCAN_PATH", "lookback");
        items = std::make_unique<env_override>("CLPRIM_SCAN_ITEMS", "2");
        radix = std::make_unique<env_override>("CLPRIM_RADIX_PATH", "onesweep_portable");
    }
};

// Data whose sums are exact in every type (small non-negative integers).
template <class T>
std::vector<T> small_values(std::size_t n, std::uint64_t seed)
{
    std::mt19937_64 rng(seed + n);
    std::vector<T> v(n);
    for (auto& x : v) x = T(rng() % 8);
    return v;
}

template <class T>
void scan_sequence(bc::command_queue& queue)
{
    if (!type_runs_here<T>()) return;
    for (std::size_t n : call_sequence()) {
        const std::vector<T> data = small_values<T>(n, 1);
        std::vector<T> sum_ex(n), sum_in(n), max_in(n);
        T acc = T(0), m = T(0);
        for (std::size_t i = 0; i < n; ++i) {
            sum_ex[i] = acc;
            acc = wrap_add(acc, data[i]);
            sum_in[i] = acc;
            m = std::max(m, data[i]);
            max_in[i] = m;
        }
        const std::string label = type_label<T>() + " n=" + std::to_string(n);
        try {
            bc::vector<T> d = to_device(data, queue);
            clprim::exclusive_scan(d.begin(), d.end(), d.begin(), queue);
            BOOST_TEST(bit_equal(to_host(d, queue), sum_ex), label << " exclusive sum");
            d = to_device(data, queue);
            clprim::inclusive_scan(d.begin(), d.end(), d.begin(), queue);
            BOOST_TEST(bit_equal(to_host(d, queue), sum_in), label << " inclusive sum");
            d = to_device(data, queue);
            clprim::inclusive_scan(d.begin(), d.end(), d.begin(), queue, bc::max<T>(), T(0));
            BOOST_TEST(bit_equal(to_host(d, queue), max_in), label << " inclusive max");
        } catch (const std::exception& e) {
            BOOST_ERROR(label << ": " << e.what());
        }
    }
}

BOOST_COMPUTE_FUNCTION(bool, odd_value, (cl_uint x), { return (x & 1u) != 0; });

} // namespace

BOOST_FIXTURE_TEST_SUITE(queue_state, fixture)

BOOST_AUTO_TEST_CASE_TEMPLATE(scans_grow_and_shrink, T, all_types)
{
    single_pass_paths paths(device);
    scan_sequence<T>(queue);
}

BOOST_AUTO_TEST_CASE(copy_if_grows_and_shrinks)
{
    single_pass_paths paths(device);
    for (std::size_t n : call_sequence()) {
        const auto data = make_data<cl_uint>(n, distribution::random);
        std::vector<cl_uint> expected;
        std::copy_if(data.begin(), data.end(), std::back_inserter(expected), [](cl_uint x) { return (x & 1u) != 0; });
        const std::string label = "copy_if n=" + std::to_string(n);
        try {
            bc::vector<cl_uint> d = to_device(data, queue), out(n, context);
            const std::size_t count = clprim::copy_if(d.begin(), d.end(), out.begin(), queue, odd_value);
            BOOST_TEST(count == expected.size(), label);
            auto h = to_host(out, queue);
            h.resize(std::min(count, n));
            BOOST_TEST(bit_equal(h, expected), label);
        } catch (const std::exception& e) {
            BOOST_ERROR(label << ": " << e.what());
        }
    }
}

BOOST_AUTO_TEST_CASE(onesweep_grows_and_shrinks)
{
    single_pass_paths paths(device);
    std::vector<std::size_t> sizes = call_sequence();
    sizes.push_back((std::size_t(1) << 20) + 7); // many one-sweep tiles, then small again
    sizes.push_back(4097);
    for (std::size_t n : sizes) {
        const std::string label = "radix n=" + std::to_string(n);
        try {
            auto keys = make_data<cl_uint>(n, distribution::random);
            auto expected = keys;
            std::sort(expected.begin(), expected.end());
            bc::vector<cl_uint> d = to_device(keys, queue);
            clprim::radix_sort(d.begin(), d.end(), queue);
            BOOST_TEST(bit_equal(to_host(d, queue), expected), label << " uint keys");

            auto wide = make_data<cl_ulong>(n, distribution::random);
            std::vector<cl_uint> values(n);
            for (std::size_t i = 0; i < n; ++i) values[i] = cl_uint(i);
            std::vector<std::size_t> order(n);
            for (std::size_t i = 0; i < n; ++i) order[i] = i;
            std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return wide[a] < wide[b]; });
            std::vector<cl_ulong> wide_expected(n);
            std::vector<cl_uint> values_expected(n);
            for (std::size_t i = 0; i < n; ++i) {
                wide_expected[i] = wide[order[i]];
                values_expected[i] = cl_uint(order[i]);
            }
            bc::vector<cl_ulong> dk = to_device(wide, queue);
            bc::vector<cl_uint> dv = to_device(values, queue);
            clprim::radix_sort_by_key(dk.begin(), dk.end(), dv.begin(), queue);
            BOOST_TEST(bit_equal(to_host(dk, queue), wide_expected), label << " ulong keys");
            BOOST_TEST(bit_equal(to_host(dv, queue), values_expected), label << " uint values");
        } catch (const std::exception& e) {
            BOOST_ERROR(label << ": " << e.what());
        }
    }
}

// The users interleaved on one queue: each one's state grows while the others' shrink.
BOOST_AUTO_TEST_CASE(users_interleaved)
{
    single_pass_paths paths(device);
    const auto seq = call_sequence();
    for (std::size_t i = 0; i < seq.size(); ++i) {
        const std::size_t n = seq[i], m = seq[seq.size() - 1 - i];
        const std::string label = "interleaved n=" + std::to_string(n) + " m=" + std::to_string(m);
        try {
            auto data = small_values<cl_ulong>(n, 3);
            std::vector<cl_ulong> expected(n);
            cl_ulong acc = 0;
            for (std::size_t j = 0; j < n; ++j) {
                expected[j] = acc;
                acc += data[j];
            }
            bc::vector<cl_ulong> d = to_device(data, queue);
            clprim::exclusive_scan(d.begin(), d.end(), d.begin(), queue);
            auto keys = make_data<cl_uint>(m, distribution::few_distinct);
            auto sorted = keys;
            std::sort(sorted.begin(), sorted.end());
            bc::vector<cl_uint> k = to_device(keys, queue);
            clprim::radix_sort(k.begin(), k.end(), queue);
            BOOST_TEST(bit_equal(to_host(d, queue), expected), label << " scan");
            BOOST_TEST(bit_equal(to_host(k, queue), sorted), label << " sort");
        } catch (const std::exception& e) {
            BOOST_ERROR(label << ": " << e.what());
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()

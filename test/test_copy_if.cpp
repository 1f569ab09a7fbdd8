// clprim::copy_if: keep-none / keep-all / half / alternating / sparse over sizes that cross tiles,
// every type, sub-ranges, the count, stability (order kept), bad ranges; against std::copy_if.
#define BOOST_TEST_MODULE clprim_copy_if
#include "clprim_test_fixture.hpp"

#include <boost/compute/function.hpp>
#include <boost/compute/lambda.hpp>

using namespace clprim_test;

namespace {

// Predicates over the element's low bits (the data are random in the type's range): keep none,
// all, about half, every other element (the data are the index), one in 64.
BOOST_COMPUTE_FUNCTION(bool, keep_none, (cl_uint x), { return false; });
BOOST_COMPUTE_FUNCTION(bool, keep_all, (cl_uint x), { return true; });
BOOST_COMPUTE_FUNCTION(bool, keep_half, (cl_uint x), { return (x & 1u) != 0; });
BOOST_COMPUTE_FUNCTION(bool, keep_sparse, (cl_uint x), { return (x & 63u) == 5u; });

const std::vector<std::size_t> sizes{0, 1, 2, 31, 255, 256, 257, 4095, 4096, 4097, 65537, (std::size_t(1) << 20) + 3};

template <class T, class Pred, class HostPred>
void check_copy_if(bc::command_queue& queue, const std::vector<T>& data, Pred pred, HostPred host_pred,
                   const std::string& label)
{
    std::vector<T> expected;
    std::copy_if(data.begin(), data.end(), std::back_inserter(expected), host_pred);
    bc::vector<T> d = to_device(data, queue);
    // Guards on both sides of the output: nothing outside [result, result + count) is written.
    const T guard = T(77);
    bc::vector<T> out = to_device(std::vector<T>(data.size() + 2, guard), queue);
    const std::size_t count = clprim::copy_if(d.begin(), d.end(), out.begin() + 1, queue, pred);
    BOOST_TEST(count == expected.size(), label << " n=" << data.size());
    const auto h = to_host(out, queue);
    std::vector<T> got(h.begin() + 1, h.begin() + 1 + std::min(count, data.size()));
    BOOST_TEST(bit_equal(got, expected), label << " n=" << data.size() << ": first difference at "
                                               << first_difference(got, expected));
    if (!bit_equal(got, expected) && data.size() < 100) {
        for (std::size_t i = 0; i < got.size(); ++i) std::cout << got[i] << "/" << expected[i] << " ";
        std::cout << std::endl;
    }
    bool guards = h.front() == guard;
    for (std::size_t i = 1 + count; i < h.size(); ++i) guards = guards && h[i] == guard;
    BOOST_TEST(guards, label << " n=" << data.size() << ": wrote outside the result");
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(copy_if, fixture)

BOOST_AUTO_TEST_CASE(patterns_and_sizes)
{
    using T = cl_uint;
    for (std::size_t n : sizes) {
        auto random = make_data<T>(n, distribution::random);
        std::vector<T> index(n);
        for (std::size_t i = 0; i < n; ++i) index[i] = T(i);
        check_copy_if<T>(queue, random, keep_none, [](T) { return false; }, "none");
        check_copy_if<T>(queue, random, keep_all, [](T) { return true; }, "all");
        check_copy_if<T>(queue, random, keep_half, [](T x) { return (x & 1u) != 0; }, "half");
        check_copy_if<T>(queue, index, keep_half, [](T x) { return (x & 1u) != 0; }, "alternating");
        check_copy_if<T>(queue, random, keep_sparse, [](T x) { return (x & 63u) == 5u; }, "sparse");
    }
}

// Every type through a lambda predicate; stability shows in the few-distinct data (equal values
// are indistinguishable, so the index goes along in the low bits for integers).
BOOST_AUTO_TEST_CASE_TEMPLATE(every_type_lambda, T, all_types)
{
    if (!type_runs_here<T>()) return;
    using bc::lambda::_1;
    for (std::size_t n : {std::size_t(1), std::size_t(257), std::size_t(4097), std::size_t(65537)}) {
        const auto v = make_data<T>(n, distribution::random);
        check_copy_if<T>(queue, v, _1 > T(0), [](T x) { return x > T(0); }, "x > 0 " + type_label<T>());
    }
}

BOOST_AUTO_TEST_CASE(sub_range_in_and_out)
{
    using T = cl_uint;
    const auto v = make_data<T>(10000, distribution::random);
    bc::vector<T> d = to_device(v, queue);
    bc::vector<T> out = to_device(std::vector<T>(10000, 0u), queue);
    const std::size_t count = clprim::copy_if(d.begin() + 17, d.end() - 3, out.begin() + 5, queue, keep_half);
    std::vector<T> expected;
    std::copy_if(v.begin() + 17, v.end() - 3, std::back_inserter(expected), [](T x) { return (x & 1u) != 0; });
    BOOST_REQUIRE(count == expected.size());
    const auto h = to_host(out, queue);
    BOOST_TEST(std::equal(expected.begin(), expected.end(), h.begin() + 5));
    BOOST_TEST(h[4] == 0u);
}

BOOST_AUTO_TEST_CASE(bad_ranges)
{
    using T = cl_uint;
    bc::vector<T> d = to_device(std::vector<T>(1000, 1u), queue);
    // Overlapping the input.
    BOOST_CHECK_THROW(clprim::copy_if(d.begin(), d.end(), d.begin() + 10, queue, keep_all),
                      clprim::invalid_argument_error);
    // Another context.
    bc::context ctx2(device);
    bc::vector<T> foreign(1000, ctx2);
    BOOST_CHECK_THROW(clprim::copy_if(d.begin(), d.end(), foreign.begin(), queue, keep_all),
                      clprim::invalid_argument_error);
    // Too small, found once the count is known: nothing past the buffer's end is written.
    bc::buffer small(context, 10 * sizeof(T));
    BOOST_CHECK_THROW(clprim::copy_if(d.begin(), d.end(), bc::make_buffer_iterator<T>(small, 0), queue, keep_all),
                      clprim::invalid_argument_error);
    // Room enough for what passes, though smaller than the input: fine.
    std::vector<T> v(1000, 0u);
    v[3] = v[500] = v[999] = 1u;
    bc::vector<T> d2 = to_device(v, queue);
    const std::size_t count = clprim::copy_if(d2.begin(), d2.end(), bc::make_buffer_iterator<T>(small, 7), queue, keep_half);
    BOOST_TEST(count == 3u);
}

BOOST_AUTO_TEST_SUITE_END()

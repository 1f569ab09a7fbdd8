// sort / sort_by_key with the user's comparator (a Boost.Compute binary predicate) against
// std::stable_sort with the same order: a BOOST_COMPUTE_FUNCTION (ints by absolute value: many
// ties, so stability shows), bc::less / bc::greater, a lambda `_1 > _2`, a float order by
// value that treats -0.0 and +0.0 as equal; values = input positions (must be the stable
// permutation); sizes across tiles and rounds; both merge paths forced, tiny GPU tiles (ragged
// last tiles: the comparator path pads by position); guards; an out-of-order queue; and the
// sort_algorithm overloads still chosen for a sort_algorithm.
#define BOOST_TEST_MODULE clprim_sort_comparator
#include "sort_test_support.hpp"

#include <clprim/sort.hpp>

#include <cstdlib>

using namespace clprim_test;

namespace {

BOOST_COMPUTE_FUNCTION(bool, abs_less, (int a, int b), { return abs(a) < abs(b); });
BOOST_COMPUTE_FUNCTION(bool, float_value_less, (float a, float b), { return a < b; });

// host twins of the device comparators
bool host_abs_less(cl_int a, cl_int b) { return std::abs(std::int64_t(a)) < std::abs(std::int64_t(b)); }

template <class K, class V, class DevCmp, class HostCmp>
void check(std::size_t n, distribution d, DevCmp dev_cmp, HostCmp host_cmp, bool with_values, bc::command_queue& q,
           const char* label)
{
    auto keys = make_data<K>(n, d, 21);
    if constexpr (std::is_same_v<K, cl_int>)
        for (auto& k : keys) k = k % 1000; // abs order: ties between k and -k
    if constexpr (std::is_same_v<K, cl_float>)
        for (auto& k : keys)
            if (std::isnan(k)) k = 0.0f; // NaNs are no strict weak order under <
    std::vector<std::size_t> perm(n);
    for (std::size_t i = 0; i < n; ++i) perm[i] = i;
    std::stable_sort(perm.begin(), perm.end(), [&](std::size_t a, std::size_t b) { return host_cmp(keys[a], keys[b]); });
    std::vector<K> ek(n);
    std::vector<V> ev(n), values(n);
    for (std::size_t i = 0; i < n; ++i) ek[i] = keys[perm[i]], ev[i] = V(perm[i]), values[i] = V(i);
    guarded_vector<K> dk(keys, std::numeric_limits<K>::max(), q);
    guarded_vector<V> dv(values, std::numeric_limits<V>::max(), q);
    if (with_values) clprim::sort_by_key(dk.first(), dk.last(), dv.first(), q, dev_cmp);
    else clprim::sort(dk.first(), dk.last(), q, dev_cmp);
    bool gk = false, gv = false;
    const auto got_k = dk.result(q, gk);
    const auto got_v = dv.result(q, gv);
    BOOST_TEST(gk, "key guard overwritten");
    BOOST_TEST(gv, "value guard overwritten");
    const long diff = first_difference(got_k, ek);
    BOOST_TEST(diff == -1, label << " n=" << n << " " << name_of(d) << ": keys differ at " << diff);
    if (with_values) {
        const long dvd = first_difference(got_v, ev);
        BOOST_TEST(dvd == -1, label << " n=" << n << " " << name_of(d) << ": values differ at " << dvd);
    }
}

const std::vector<std::size_t> sizes{0, 1, 2, 3, 33, 257, 1000, 4097, 65537};

void abs_cases(bc::command_queue& q, const std::vector<std::size_t>& ns)
{
    for (std::size_t n : ns)
        for (auto d : {distribution::random, distribution::few_distinct, distribution::reversed}) {
            check<cl_int, cl_uint>(n, d, abs_less, host_abs_less, false, q, "int abs");
            check<cl_int, cl_uint>(n, d, abs_less, host_abs_less, true, q, "int abs pairs");
        }
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(sort_comparator, fixture)

BOOST_AUTO_TEST_CASE(boost_compute_function_abs)
{
    abs_cases(queue, sizes);
    const std::size_t big = std::size_t(1) << (on_gpu() ? 24 : 20);
    check<cl_int, cl_uint>(big + 3, distribution::random, abs_less, host_abs_less, true, queue, "int abs pairs");
}

BOOST_AUTO_TEST_CASE(less_greater_lambda)
{
    using bc::lambda::_1;
    using bc::lambda::_2;
    for (std::size_t n : sizes) {
        check<cl_uint, cl_uint>(n, distribution::few_distinct, bc::less<cl_uint>(), std::less<cl_uint>(), true, queue, "uint less");
        check<cl_long, cl_uint>(n, distribution::few_distinct, bc::greater<cl_long>(), std::greater<cl_long>(), true, queue,
                                "long greater");
        check<cl_uint, cl_ulong>(n, distribution::random, _1 > _2, std::greater<cl_uint>(), true, queue, "uint lambda >");
        check<cl_float, cl_uint>(n, distribution::float_specials, float_value_less,
                                 [](float a, float b) { return a < b; }, true, queue, "float <");
    }
    if (type_runs_here<cl_double>())
        for (std::size_t n : {33, 4097})
            check<cl_double, cl_int>(n, distribution::few_distinct, bc::greater<cl_double>(), std::greater<cl_double>(), true,
                                     queue, "double greater");
}

// Both merge paths; the GPU one with tiny tiles (4 x 3, tile sort 8 x 3) so most sizes end in a
// ragged, padded tile, and with one key per work-item; the rounds' split searches forced.
BOOST_AUTO_TEST_CASE(paths_forced)
{
    {
        env_override path("CLPRIM_MERGE_PATH", "cpu");
        abs_cases(queue, {0, 1, 33, 1000, 4097});
    }
    env_override path("CLPRIM_MERGE_PATH", "gpu");
    for (const char* tune : {"4,3", "2,1", "16,7"}) {
        env_override t("CLPRIM_MERGE_GPU_TUNE", tune);
        abs_cases(queue, {1, 2, 11, 12, 13, 47, 1000, 4097});
    }
    abs_cases(queue, {65537});
    // The rounds' split searches with the comparator (CLPRIM_MERGE_SPLIT, see test_merge_sort).
    env_override t("CLPRIM_MERGE_GPU_TUNE", "4,3");
    for (const char* split : {"0", "1,1,4,4", "4,4,8,8", "1,1,4,4,16", "1,1,64,16,0,0,16"}) {
        env_override sp("CLPRIM_MERGE_SPLIT", split);
        abs_cases(queue, {1000, 4097});
    }
}

// sort_algorithm arguments still reach the algorithm overloads (and keep the key order).
BOOST_AUTO_TEST_CASE(sort_algorithm_overloads_unchanged)
{
    const auto data = make_data<cl_int>(1000, distribution::random);
    for (auto algo : {clprim::sort_algorithm::merge, clprim::sort_algorithm::radix}) {
        auto v = to_device(data, queue);
        clprim::sort(v.begin(), v.end(), queue, algo);
        BOOST_TEST(bit_equal(to_host(v, queue), reference(data, clprim::sort_order::ascending)));
        auto w = to_device(data, queue);
        bc::vector<cl_uint> vals(1000, context);
        clprim::sort_by_key(w.begin(), w.end(), vals.begin(), queue, algo, clprim::sort_order::descending);
        BOOST_TEST(bit_equal(to_host(w, queue), reference(data, clprim::sort_order::descending)));
    }
}

BOOST_AUTO_TEST_CASE(bad_input_throws)
{
    bc::vector<cl_int> k(100, context);
    bc::vector<cl_int> v(100, context);
    BOOST_CHECK_THROW(clprim::sort(k.begin() + 5, k.begin() + 4, queue, abs_less), clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::sort_by_key(k.begin(), k.begin() + 50, k.begin() + 40, queue, abs_less),
                      clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::sort_by_key(k.begin(), k.begin() + 50, v.begin() + 51, queue, abs_less),
                      clprim::invalid_argument_error);
}

BOOST_AUTO_TEST_CASE(out_of_order_queue)
{
    const auto props = device.get_info<cl_command_queue_properties>(CL_DEVICE_QUEUE_PROPERTIES);
    if (!(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) return;
    bc::command_queue ooo(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    abs_cases(ooo, {1000, 70001});
}

BOOST_AUTO_TEST_SUITE_END()

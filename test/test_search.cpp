// lower_bound / upper_bound against std::lower_bound / std::upper_bound with the total order:
// every key type, cl_uint and cl_ulong results, ranges with runs of equal keys and float specials
// (-0.0 before +0.0, NaNs by their bits), queries inside, between and outside the range, empty
// ranges and no queries, results between guards, every path forced (CLPRIM_SEARCH_PATH) with
// sample counts above and below the range's length, tiles of sorted queries of several sizes
// and tree nodes of several sizes, ranges off 16-byte boundaries, overlapping results rejected,
// an out-of-order queue.
#define BOOST_TEST_MODULE clprim_search
#include "sort_test_support.hpp"

#include <clprim/search.hpp>

using namespace clprim_test;

namespace {

// skip: the range starts that many elements into its buffer (keys there and past the end that
// would change answers if read).
template <class T, class Index>
void check_search(std::size_t n, std::size_t nq, distribution d, bool upper, bc::command_queue& q, std::size_t skip = 0)
{
    auto sorted = make_data<T>(n, d, 7);
    std::stable_sort(sorted.begin(), sorted.end(), total_less<T>);
    // Queries: half taken from the range (hits on runs of equal keys), half drawn like it.
    auto queries = make_data<T>(nq, d, 8);
    for (std::size_t i = 0; i < nq && n > 0; i += 2) queries[i] = sorted[(i * 7919) % n];
    std::vector<Index> expect(nq);
    for (std::size_t i = 0; i < nq; ++i)
        expect[i] = Index(upper ? std::upper_bound(sorted.begin(), sorted.end(), queries[i], total_less<T>) - sorted.begin()
                                : std::lower_bound(sorted.begin(), sorted.end(), queries[i], total_less<T>) - sorted.begin());
    std::vector<T> padded(skip, n ? sorted.back() : T(1));
    padded.insert(padded.end(), sorted.begin(), sorted.end());
    padded.resize(padded.size() + skip, n ? sorted.front() : T(0));
    auto dev_padded = to_device(padded, q);
    const auto sorted_first = dev_padded.begin() + skip, sorted_last = sorted_first + n;
    auto dev_queries = to_device(queries, q);
    const Index g = std::numeric_limits<Index>::max();
    guarded_vector<Index> out(std::vector<Index>(nq, Index(12345)), g, q);
    if (upper) clprim::upper_bound(sorted_first, sorted_last, dev_queries.begin(), dev_queries.end(), out.first(), q);
    else clprim::lower_bound(sorted_first, sorted_last, dev_queries.begin(), dev_queries.end(), out.first(), q);
    bool guards_ok = false;
    const auto got = out.result(q, guards_ok);
    BOOST_TEST(guards_ok, "guard overwritten");
    const long diff = first_difference(got, expect);
    BOOST_TEST(diff == -1, type_label<T>() << " -> " << type_label<Index>() << " n=" << n << " queries=" << nq << " "
                                           << name_of(d) << (upper ? " upper" : " lower") << ": first difference at "
                                           << diff);
}

template <class T, class Index>
void matrix()
{
    auto& q = device_under_test::get().queue;
    for (bool upper : {false, true})
        for (std::size_t n : {0, 1, 2, 31, 1000, 4097, 65537})
            for (auto d : {distribution::random, distribution::few_distinct, distribution::all_equal, distribution::float_specials})
                for (std::size_t nq : {0, 1, 33, 5000}) check_search<T, Index>(n, nq, d, upper, q);
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(search, fixture)

BOOST_AUTO_TEST_CASE_TEMPLATE(every_type_default_path, T, all_types)
{
    if (!type_runs_here<T>()) return;
    matrix<T, cl_uint>();
}

BOOST_AUTO_TEST_CASE(ulong_results_and_large)
{
    matrix<cl_float, cl_ulong>();
    matrix<cl_ulong, cl_ulong>();
    const std::size_t big = std::size_t(1) << (on_gpu() ? 24 : 20);
    check_search<cl_uint, cl_uint>(big + 3, big, distribution::random, false, queue);
    check_search<cl_float, cl_ulong>(big - 1, 100000, distribution::few_distinct, true, queue);
}

// Both paths on this device; the cached one with its default samples, few samples (3 and 1: long
// intervals in global memory) and more samples than the range has elements (repeated positions).
BOOST_AUTO_TEST_CASE(paths_forced)
{
    {
        env_override path("CLPRIM_SEARCH_PATH", "plain");
        matrix<cl_int, cl_uint>();
    }
    env_override path("CLPRIM_SEARCH_PATH", "cached");
    matrix<cl_uint, cl_uint>();
    matrix<cl_double, cl_ulong>();
    for (const char* tune : {"64,2,7", "32,3,1", "16,1,3"}) {
        env_override t("CLPRIM_SEARCH_TUNE", tune);
        for (bool upper : {false, true})
            for (std::size_t n : {1, 2, 5, 1000, 65537}) {
                check_search<cl_float, cl_uint>(n, 3001, distribution::float_specials, upper, queue);
                check_search<cl_long, cl_ulong>(n, 3001, distribution::few_distinct, upper, queue);
            }
    }
    check_search<cl_uint, cl_uint>((1u << 20) + 7, 1u << 18, distribution::random, true, queue);
}

// The sorted path (the queries radix-sorted first): every key type, both index types, tiles of
// one and of many work-items (slices in local memory or, when longer, in global memory).
BOOST_AUTO_TEST_CASE(sorted_path_forced)
{
    env_override path("CLPRIM_SEARCH_PATH", "sorted");
    matrix<cl_int, cl_uint>();
    matrix<cl_double, cl_ulong>();
    for (const char* tune : {"1,1,3", "64,3,1", "32,16,255"}) {
        env_override t("CLPRIM_SEARCH_TUNE", tune);
        for (bool upper : {false, true})
            for (std::size_t n : {1, 2, 5, 1000, 65537}) {
                check_search<cl_float, cl_uint>(n, 3001, distribution::float_specials, upper, queue);
                check_search<cl_long, cl_ulong>(n, 3001, distribution::few_distinct, upper, queue);
                check_search<cl_uint, cl_uint>(n, 4097, distribution::random, upper, queue);
            }
    }
    check_search<cl_uint, cl_uint>((1u << 20) + 7, (1u << 20) - 1, distribution::random, false, queue);
    check_search<cl_ulong, cl_uint>(1u << 18, 1u << 19, distribution::sorted, true, queue);
}

// The tree path (a B+tree over the range): every key type, both index types, nodes of 16, 32
// and 64 bytes, top levels of 1, 3 and 4096 keys (many levels, or one), 1, 2 and 4 queries going
// down together per work-item, ranges starting off a 16-byte boundary (the leaves read key by key).
BOOST_AUTO_TEST_CASE_TEMPLATE(tree_path_every_type, T, all_types)
{
    if (!type_runs_here<T>()) return;
    env_override path("CLPRIM_SEARCH_PATH", "tree");
    matrix<T, cl_uint>();
}

BOOST_AUTO_TEST_CASE(tree_path_forced)
{
    env_override path("CLPRIM_SEARCH_PATH", "tree");
    matrix<cl_double, cl_ulong>();
    matrix<cl_uchar, cl_uint>();
    matrix<cl_char, cl_ulong>();
    matrix<cl_ushort, cl_uint>();
    for (const char* tune : {"1,1,1,16,2", "64,3,3,32,4", "32,16,4096,64", "16,2,7,16,2"}) {
        env_override t("CLPRIM_SEARCH_TUNE", tune);
        for (bool upper : {false, true})
            for (std::size_t n : {1, 2, 5, 17, 1000, 65537}) {
                check_search<cl_float, cl_uint>(n, 3001, distribution::float_specials, upper, queue);
                check_search<cl_long, cl_ulong>(n, 3001, distribution::few_distinct, upper, queue, 1);
                check_search<cl_uint, cl_uint>(n, 4097, distribution::random, upper, queue, n % 3);
                check_search<cl_short, cl_uint>(n, 999, distribution::few_distinct, upper, queue, 5);
            }
    }
    check_search<cl_uint, cl_uint>((1u << 20) + 7, (1u << 20) - 1, distribution::random, false, queue);
    check_search<cl_ulong, cl_uint>(1u << 18, 1u << 19, distribution::sorted, true, queue, 3);
}

BOOST_AUTO_TEST_CASE(bad_input_throws)
{
    bc::vector<cl_uint> a(100, context), v(100, context);
    bc::vector<cl_uint> r(100, context);
    // results over the range or over the queries
    BOOST_CHECK_THROW(clprim::lower_bound(a.begin(), a.begin() + 50, v.begin(), v.begin() + 10, a.begin() + 45, queue),
                      clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::upper_bound(a.begin(), a.begin() + 50, v.begin(), v.begin() + 10, v.begin() + 9, queue),
                      clprim::invalid_argument_error);
    // too few results, reversed queries
    BOOST_CHECK_THROW(clprim::lower_bound(a.begin(), a.end(), v.begin(), v.end(), r.begin() + 1, queue),
                      clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::lower_bound(a.begin(), a.end(), v.begin() + 5, v.begin() + 4, r.begin(), queue),
                      clprim::invalid_argument_error);
    // adjacent is fine
    clprim::lower_bound(a.begin(), a.begin() + 50, a.begin() + 50, a.begin() + 60, r.begin(), queue);
    queue.finish();
}

BOOST_AUTO_TEST_CASE(out_of_order_queue)
{
    const auto props = device.get_info<cl_command_queue_properties>(CL_DEVICE_QUEUE_PROPERTIES);
    if (!(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) return;
    bc::command_queue ooo(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    for (auto path : {"plain", "cached", "sorted", "tree"}) {
        env_override p("CLPRIM_SEARCH_PATH", path);
        check_search<cl_uint, cl_uint>(70001, 40000, distribution::few_distinct, false, ooo);
        check_search<cl_uint, cl_uint>(1000, 1, distribution::random, true, ooo);
    }
}

BOOST_AUTO_TEST_SUITE_END()

// clprim::copy_if: keep-none / keep-all / half / alternating / sparse over sizes that cross tiles,
// every type, sub-ranges, the count, stability (order kept), bad ranges; against std::copy_if.
// Both paths forced (CLPRIM_COPY_IF_PATH), the single pass with tiny tiles (CLPRIM_COPY_IF_TUNE:
// thousands of tiles, far more than the device runs at once) and with every tile taking the
// look-back's decoupled fallback (CLPRIM_LOOKBACK=fallback); the count_result overload; an
// out-of-order queue; a result too small.
#define BOOST_TEST_MODULE clprim_copy_if
#include "clprim_test_fixture.hpp"

#include <boost/compute/function.hpp>
#include <boost/compute/lambda.hpp>
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/lookback_slots.hpp>

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

// The count_result overload over the sub-range [7, 7 + n) of an input into a guarded sub-range of
// the result, the count into the middle of three words; then a result with room for 3 elements
// only (the count is the full one, 3 are written).
void check_count_result(bc::command_queue& queue, std::size_t n, const std::string& label)
{
    using T = cl_uint;
    const auto v = make_data<T>(n + 10, distribution::random, n + 1);
    std::vector<T> expected;
    std::copy_if(v.begin() + 7, v.begin() + 7 + n, std::back_inserter(expected), [](T x) { return (x & 1u) != 0; });
    bc::vector<T> d = to_device(v, queue);
    const T guard = T(77);
    bc::vector<T> out = to_device(std::vector<T>(n + 2, guard), queue);
    bc::vector<cl_ulong> c = to_device(std::vector<cl_ulong>{5, 5, 5}, queue);
    clprim::copy_if(d.begin() + 7, d.begin() + 7 + n, out.begin() + 1, c.begin() + 1, queue, keep_half);
    const auto hc = to_host(c, queue);
    BOOST_TEST((hc[0] == 5 && hc[1] == expected.size() && hc[2] == 5),
               label << " n=" << n << " count " << hc[1] << " expected " << expected.size());
    const auto h = to_host(out, queue);
    std::vector<T> got(h.begin() + 1, h.begin() + 1 + expected.size());
    BOOST_TEST(bit_equal(got, expected), label << " n=" << n);
    bool guards = h.front() == guard;
    for (std::size_t i = 1 + expected.size(); i < h.size(); ++i) guards = guards && h[i] == guard;
    BOOST_TEST(guards, label << " n=" << n << ": wrote outside the result");
    if (expected.size() > 3) {
        bc::vector<T> small = to_device(std::vector<T>(4, guard), queue);
        clprim::copy_if(d.begin() + 7, d.begin() + 7 + n, small.begin() + 1, c.begin(), queue, keep_half);
        const auto hs = to_host(small, queue);
        const auto hc2 = to_host(c, queue);
        BOOST_TEST(hc2[0] == expected.size(), label << " n=" << n << " small result count");
        BOOST_TEST((hs[0] == guard && hs[1] == expected[0] && hs[2] == expected[1] && hs[3] == expected[2]),
                   label << " n=" << n << " small result");
    }
}

// Both overloads on the out-of-order queue ooo with n elements: each call runs after the upload
// and before the reads that follow it on the queue.
void check_out_of_order(bc::command_queue& ooo, std::size_t n, const std::string& label)
{
    using T = cl_uint;
    const bc::context context = ooo.get_context();
    const auto v = make_data<T>(n, distribution::random, 99);
    std::vector<T> expected;
    std::copy_if(v.begin(), v.end(), std::back_inserter(expected), [](T x) { return (x & 1u) != 0; });
    bc::vector<T> d(n, context), out(n, context);
    bc::vector<cl_ulong> c(1, context);
    bc::copy_async(v.begin(), v.end(), d.begin(), ooo);
    const std::size_t count = clprim::copy_if(d.begin(), d.end(), out.begin(), ooo, keep_half);
    BOOST_TEST(count == expected.size(), label);
    std::vector<T> h(n);
    bc::copy(out.begin(), out.end(), h.begin(), ooo);
    BOOST_TEST(std::equal(expected.begin(), expected.end(), h.begin()), label);
    const std::vector<T> zeros(n, 0u);
    bc::copy(zeros.begin(), zeros.end(), out.begin(), ooo);
    clprim::copy_if(d.begin(), d.end(), out.begin(), c.begin(), ooo, keep_half);
    std::vector<cl_ulong> hc(1);
    bc::copy(c.begin(), c.end(), hc.begin(), ooo);
    bc::copy(out.begin(), out.end(), h.begin(), ooo);
    BOOST_TEST(hc[0] == expected.size(), label << " count_result");
    BOOST_TEST(std::equal(expected.begin(), expected.end(), h.begin()), label << " count_result");
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

// Boost.Compute functions of one name with different sources (or definitions) are different
// predicates: the file a function renders to is remembered by name, source and definitions, so
// each call still runs its own (operator_source.hpp).
BOOST_AUTO_TEST_CASE(functions_of_one_name)
{
    using T = cl_uint;
    const auto v = make_data<T>(5000, distribution::random, 3);
    auto low_bits = [](cl_uint mask) {
        auto f = bc::make_function_from_source<bool(cl_uint)>(
            "clprim_test_keep", "bool clprim_test_keep(uint x) { return (x & KEEP_MASK) == 0; }");
        f.define("KEEP_MASK", std::to_string(mask) + "u");
        return f;
    };
    for (int round = 0; round < 2; ++round)
        for (cl_uint mask : {1u, 3u, 1u, 7u}) {
            check_copy_if<T>(queue, v, low_bits(mask), [mask](T x) { return (x & mask) == 0; },
                             "define KEEP_MASK=" + std::to_string(mask));
            auto g = bc::make_function_from_source<bool(cl_uint)>(
                "clprim_test_keep", "bool clprim_test_keep(uint x) { return (x % " + std::to_string(mask + 2) + "u) == 1u; }");
            check_copy_if<T>(queue, v, g, [mask](T x) { return x % (mask + 2) == 1u; }, "source % " + std::to_string(mask + 2));
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

// The paths the knobs force, with the tile shapes, look-back modes and single-pass kernel
// variants (CLPRIM_COPY_IF_COMPACT, CLPRIM_COPY_IF_VEC: 16-byte loads where the items are a
// multiple of the vector) they are tested in.
struct forced_path {
    const char* path;
    const char* tune;     // CLPRIM_COPY_IF_TUNE, or nullptr for the policy's
    const char* lookback; // CLPRIM_LOOKBACK
    const char* compact;  // CLPRIM_COPY_IF_COMPACT, or "" for the policy's
    const char* vec;      // CLPRIM_COPY_IF_VEC, or "" for the policy's
    const char* order = ""; // CLPRIM_COPY_IF_ORDER, or "" for the policy's
    const char* walk = "";  // CLPRIM_COPY_IF_LOOKBACK (warp: NVIDIA only, the window elsewhere)
    const char* rows_vec = ""; // CLPRIM_COPY_IF_ROWS_VEC
    const char* walk_reads = ""; // CLPRIM_COPY_IF_WALK_READS (the warp walk's reach: NVIDIA only)
};
const forced_path forced_paths[] = {
    {"three_pass", nullptr, "wait", "", ""},                   // 0
    {"single_pass", nullptr, "wait", "", ""},                  // 1
    {"single_pass", "4,3", "wait", "", ""},                    // 2
    {"single_pass", "4,3", "fallback", "", ""},                // 3
    {"single_pass", "32,5", "fallback", "", ""},               // 4
    {"single_pass", "64,32", "wait", "", ""},                  // 5
    {"single_pass", "4,3", "wait", "gather", "0"},             // 6
    {"single_pass", "32,8", "fallback", "gather", "1", "", "warp"}, // 7
    {"single_pass", "32,8", "wait", "in_place", "1"},          // 8
    {"single_pass", "4,3", "wait", "", "", "group"},           // 9
    {"single_pass", "32,8", "fallback", "in_place", "1", "group"}, // 10
    {"single_pass", "32,8", "fallback", "rows", "", "", "warp"}, // 11
    {"single_pass", "64,31", "wait", "rows", "", "group", ""}, // 12
    {"single_pass", "32,8", "fallback", "rows", "", "group", "warp", "1"}, // 13
    {"single_pass", "32,8", "wait", "rows", "", "group", "warp", "", "4"}, // 14
    {"single_pass", nullptr, "fallback", "", "", "", "warp", "", "2"}, // 15
    {"single_pass", nullptr, "wait", "", "", "", "warp", "", "1"}, // 16
};

// The knobs of one forced path, set while it lives.
struct forcing {
    explicit forcing(const forced_path& f)
        : path("CLPRIM_COPY_IF_PATH", f.path), tune("CLPRIM_COPY_IF_TUNE", f.tune ? f.tune : ""),
          lookback("CLPRIM_LOOKBACK", f.lookback), compact("CLPRIM_COPY_IF_COMPACT", f.compact),
          vec("CLPRIM_COPY_IF_VEC", f.vec), order("CLPRIM_COPY_IF_ORDER", f.order), walk("CLPRIM_COPY_IF_LOOKBACK", f.walk),
          rows_vec("CLPRIM_COPY_IF_ROWS_VEC", f.rows_vec), walk_reads("CLPRIM_COPY_IF_WALK_READS", f.walk_reads)
    {
    }
    env_override path, tune, lookback, compact, vec, order, walk, rows_vec, walk_reads;
};

std::string label_of(const forced_path& f)
{
    return std::string(f.path) + (f.tune ? std::string(" tune ") + f.tune : std::string()) + " lookback " + f.lookback +
           (*f.compact ? std::string(" ") + f.compact : std::string()) + (*f.vec ? std::string(" vec ") + f.vec : std::string()) +
           (*f.order ? std::string(" order ") + f.order : std::string()) +
           (*f.walk ? std::string(" walk ") + f.walk : std::string()) +
           (*f.rows_vec ? std::string(" rows_vec ") + f.rows_vec : std::string()) +
           (*f.walk_reads ? std::string(" walk_reads ") + f.walk_reads : std::string());
}

// Sizes around the tiny tiles' boundaries (4 x 3 = 12 elements) and the default ones (256 x 16),
// and one of thousands of tiny tiles.
BOOST_AUTO_TEST_CASE(every_path_forced)
{
    using T = cl_uint;
    for (const auto& f : forced_paths) {
        if (*f.walk_reads && !clprim::detail::profile_of(device).nvidia) continue; // (the same kernel elsewhere)
        forcing force(f);
        for (std::size_t n : {std::size_t(1), std::size_t(11), std::size_t(12), std::size_t(13), std::size_t(97),
                              std::size_t(4095), std::size_t(4096), std::size_t(4097), std::size_t(8193),
                              std::size_t(50001)}) {
            auto random = make_data<T>(n, distribution::random, n);
            std::vector<T> index(n);
            for (std::size_t i = 0; i < n; ++i) index[i] = T(i);
            check_copy_if<T>(queue, random, keep_half, [](T x) { return (x & 1u) != 0; }, "half " + label_of(f));
            check_copy_if<T>(queue, index, keep_half, [](T x) { return (x & 1u) != 0; }, "alternating " + label_of(f));
            check_copy_if<T>(queue, random, keep_sparse, [](T x) { return (x & 63u) == 5u; }, "sparse " + label_of(f));
        }
    }
}

// The one-work-group path (copy_if_small.cl, CLPRIM_COPY_IF_SMALL: the largest range it takes
// and the group's size): sizes 0 to the limit and one past it (the single pass then), every pattern, a type of every
// width, both overloads with guarded sub-ranges, a result too small, an out-of-order queue.
BOOST_AUTO_TEST_CASE(small_path)
{
    using T = cl_uint;
    for (const char* most : {"4096", "8192", "300", "1000,32", "4096,1024"}) {
        env_override small("CLPRIM_COPY_IF_SMALL", most);
        const std::size_t limit = std::stoul(most);
        for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(3), std::size_t(31), std::size_t(32),
                              std::size_t(33), std::size_t(257), std::size_t(299), std::size_t(300), std::size_t(301),
                              std::size_t(1021), std::size_t(1024), std::size_t(4093), std::size_t(4096),
                              std::size_t(4097), std::size_t(8191), std::size_t(8192), std::size_t(8193)}) {
            if (n > limit + 1 && n > 4097) continue;
            const std::string label = std::string("small ") + most;
            auto random = make_data<T>(n, distribution::random, n);
            std::vector<T> index(n);
            for (std::size_t i = 0; i < n; ++i) index[i] = T(i);
            check_copy_if<T>(queue, random, keep_half, [](T x) { return (x & 1u) != 0; }, "half " + label);
            check_copy_if<T>(queue, index, keep_half, [](T x) { return (x & 1u) != 0; }, "alternating " + label);
            check_copy_if<T>(queue, random, keep_sparse, [](T x) { return (x & 63u) == 5u; }, "sparse " + label);
            if (n % 4 == 1) {
                check_copy_if<T>(queue, random, keep_none, [](T) { return false; }, "none " + label);
                check_copy_if<T>(queue, random, keep_all, [](T) { return true; }, "all " + label);
            }
        }
    }
    env_override small("CLPRIM_COPY_IF_SMALL", "4096");
    check_copy_if<T>(queue, std::vector<T>{}, keep_half, [](T x) { return (x & 1u) != 0; }, "small empty");
    // The count read in every form, calls in a row (each must see its own count).
    for (const char* read : {"spin", "plain", "finish", "map", "flush_async"}) {
        env_override r("CLPRIM_COPY_IF_READ", read);
        for (std::size_t n : {std::size_t(1), std::size_t(5), std::size_t(1024), std::size_t(4096), std::size_t(4097)}) {
            const auto random = make_data<T>(n, distribution::random, n + 3);
            check_copy_if<T>(queue, random, keep_half, [](T x) { return (x & 1u) != 0; }, std::string("small read ") + read);
            check_copy_if<T>(queue, random, keep_sparse, [](T x) { return (x & 63u) == 5u; }, std::string("small read ") + read);
        }
    }
    using bc::lambda::_1;
    for (std::size_t n : {std::size_t(13), std::size_t(1021)}) {
        if (type_runs_here<cl_char>()) {
            const auto v = make_data<cl_char>(n, distribution::random);
            check_copy_if<cl_char>(queue, v, _1 > cl_char(0), [](cl_char x) { return x > 0; }, "small char");
        }
        const auto s = make_data<cl_short>(n, distribution::random);
        check_copy_if<cl_short>(queue, s, _1 < cl_short(0), [](cl_short x) { return x < 0; }, "small short");
        const auto f = make_data<cl_float>(n, distribution::random);
        check_copy_if<cl_float>(queue, f, _1 > 0.5f, [](cl_float x) { return x > 0.5f; }, "small float");
        if (type_runs_here<cl_double>()) {
            const auto dv = make_data<cl_double>(n, distribution::random);
            check_copy_if<cl_double>(queue, dv, _1 < 0.25, [](cl_double x) { return x < 0.25; }, "small double");
        }
        const auto l = make_data<cl_long>(n, distribution::random);
        check_copy_if<cl_long>(queue, l, _1 > cl_long(0), [](cl_long x) { return x > 0; }, "small long");
    }
    // count_result into a guarded word, sub-ranges in and out, a result with room for 3 (both
    // overloads: the value-returning one throws).
    for (std::size_t n : {std::size_t(1), std::size_t(25), std::size_t(1024), std::size_t(4096)}) {
        check_count_result(queue, n, "small");
        const auto v = make_data<T>(n, distribution::random, n + 1);
        std::vector<T> expected;
        std::copy_if(v.begin(), v.end(), std::back_inserter(expected), [](T x) { return (x & 1u) != 0; });
        if (expected.size() > 3) {
            bc::vector<T> d = to_device(v, queue);
            // (The room ends with the buffer: 3 elements after a guard.)
            bc::vector<T> room = to_device(std::vector<T>(4, T(77)), queue);
            BOOST_CHECK_THROW(clprim::copy_if(d.begin(), d.end(), room.begin() + 1, queue, keep_half),
                              clprim::invalid_argument_error);
            const auto hr = to_host(room, queue);
            BOOST_TEST((hr[0] == T(77) && hr[1] == expected[0] && hr[2] == expected[1] && hr[3] == expected[2]),
                       "small result too small n=" << n);
        }
    }
    // An out-of-order queue: the calls run after the upload and before the reads behind them.
    bc::command_queue ooo(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    check_out_of_order(ooo, 3001, "small out-of-order");
}

// The single pass at 2^24 + 3 (2^26 + 1 on GPUs too), waiting and with every tile's fallback: no
// hang, the same results.
BOOST_AUTO_TEST_CASE(single_pass_large)
{
    using T = cl_uint;
    std::vector<std::size_t> ns{(std::size_t(1) << 24) + 3};
    if (on_gpu()) ns.push_back((std::size_t(1) << 26) + 1);
    for (std::size_t n : ns) {
        const auto random = make_data<T>(n, distribution::random, 7);
        for (const char* lookback : {"wait", "fallback"}) {
            env_override path("CLPRIM_COPY_IF_PATH", "single_pass");
            env_override lb("CLPRIM_LOOKBACK", lookback);
            check_copy_if<T>(queue, random, keep_half, [](T x) { return (x & 1u) != 0; },
                             std::string("half single_pass lookback ") + lookback);
            // GPUs: the other look-back walk and tile order too (NVIDIA's warp walk; the same
            // window walk elsewhere).
            if (on_gpu()) {
                env_override walk("CLPRIM_COPY_IF_LOOKBACK", "warp"), order("CLPRIM_COPY_IF_ORDER", "group");
                check_copy_if<T>(queue, random, keep_half, [](T x) { return (x & 1u) != 0; },
                                 std::string("half single_pass warp walk, group order, lookback ") + lookback);
            }
        }
    }
}

// Every type on both paths, the single pass with tiny tiles and every tile's fallback.
BOOST_AUTO_TEST_CASE_TEMPLATE(every_type_every_path, T, all_types)
{
    if (!type_runs_here<T>()) return;
    using bc::lambda::_1;
    for (const auto& f : {forced_paths[0], forced_paths[3], forced_paths[11], forced_paths[13]}) {
        forcing force(f);
        for (std::size_t n : {std::size_t(13), std::size_t(1000)}) {
            const auto v = make_data<T>(n, distribution::random);
            check_copy_if<T>(queue, v, _1 > T(0), [](T x) { return x > T(0); }, "x > 0 " + type_label<T>() + " " + label_of(f));
        }
    }
}

// The count_result overload on every path: the count on the device, the kept elements in a
// guarded sub-range of the result, nothing past the result's room, the input a sub-range too.
BOOST_AUTO_TEST_CASE(count_result_every_path)
{
    for (const auto& f : forced_paths) {
        if (*f.walk_reads && !clprim::detail::profile_of(device).nvidia) continue; // (the same kernel elsewhere)
        forcing force(f);
        for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(25), std::size_t(4097), std::size_t(30011)})
            check_count_result(queue, n, label_of(f));
    }
}

// Both overloads on an out-of-order queue, on every path: the call still runs after the upload
// and before the read that follow it on the queue.
BOOST_AUTO_TEST_CASE(out_of_order_queue_every_path)
{
    bc::command_queue ooo(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    for (const auto& f : {forced_paths[0], forced_paths[1], forced_paths[3], forced_paths[10], forced_paths[7], forced_paths[12], forced_paths[13]}) {
        forcing force(f);
        check_out_of_order(ooo, 20000, label_of(f));
    }
}

// A result too small for what passes: an invalid_argument_error once the count is known, the
// elements that fit written, nothing past the end of the result's buffer.
BOOST_AUTO_TEST_CASE(result_too_small_every_path)
{
    using T = cl_uint;
    for (const auto& f : {forced_paths[0], forced_paths[2]}) {
        forcing force(f);
        const auto v = make_data<T>(1000, distribution::random, 5);
        std::vector<T> expected;
        std::copy_if(v.begin(), v.end(), std::back_inserter(expected), [](T x) { return (x & 1u) != 0; });
        bc::vector<T> d = to_device(v, queue);
        bc::vector<T> whole = to_device(std::vector<T>(40, T(77)), queue);
        // A sub-buffer-free way to limit the room: the result starts 30 elements before the end.
        BOOST_CHECK_THROW(clprim::copy_if(d.begin(), d.end(), whole.begin() + 30, queue, keep_half),
                          clprim::invalid_argument_error);
        const auto h = to_host(whole, queue);
        BOOST_TEST(std::equal(expected.begin(), expected.begin() + 10, h.begin() + 30), label_of(f));
        BOOST_TEST(std::all_of(h.begin(), h.begin() + 30, [](T x) { return x == T(77); }), label_of(f));
    }
}

// Calls one after another on one queue leave their look-back status words in the queue's slots
// (clprim/detail/lookback_slots.hpp: tagged by the call's epoch, never cleared between calls),
// so each call must take only its own epoch's words as published. Sizes shrinking and growing
// with tiny tiles (thousands of tiles: a later call's slots lie over an earlier call's counts,
// flagged aggregate and prefix), keep-all / half / sparse in turn (the stale counts differ from
// the right ones), both overloads, a look-back scan and a unique on the same queue in between
// (other users of the slots), every read form of the count, and across the epoch's wrap.
BOOST_AUTO_TEST_CASE(stale_status_words_across_calls)
{
    using T = cl_uint;
    env_override path("CLPRIM_COPY_IF_PATH", "single_pass");
    env_override scan_path("CLPRIM_SCAN_PATH", "lookback"), by_key_path("CLPRIM_BY_KEY_PATH", "lookback");
    const std::size_t sizes[] = {50001, 4097, 13, 65537, 1000, 50001, 257, 12, 30011};
    const char* const reads[] = {"pinned", "async", "plain", "flush_pinned", "flush_async", "finish", "map", "spin"};
    auto run_all = [&](const std::string& label) {
        int i = 0;
        for (std::size_t n : sizes) {
            env_override read("CLPRIM_COPY_IF_READ", reads[i % 8]);
            const auto v = make_data<T>(n, distribution::random, unsigned(n + i));
            const std::string what = label + " call " + std::to_string(i) + " read " + reads[i % 8];
            if (i % 3 == 0) check_copy_if<T>(queue, v, keep_all, [](T) { return true; }, "all " + what);
            else if (i % 3 == 1) check_copy_if<T>(queue, v, keep_half, [](T x) { return (x & 1u) != 0; }, "half " + what);
            else check_copy_if<T>(queue, v, keep_sparse, [](T x) { return (x & 63u) == 5u; }, "sparse " + what);
            // The count_result overload, then another user of the slots on the same queue.
            const std::size_t half = std::size_t(std::count_if(v.begin(), v.end(), [](T x) { return (x & 1u) != 0; }));
            bc::vector<T> d = to_device(v, queue), out(n, context);
            bc::vector<cl_ulong> c(1, context);
            clprim::copy_if(d.begin(), d.end(), out.begin(), c.begin(), queue, keep_half);
            BOOST_TEST(to_host(c, queue)[0] == half, "count_result " << what);
            if (i % 2 == 0) {
                std::vector<T> expected(n);
                T sum = 0;
                for (std::size_t k = 0; k < n; ++k) {
                    expected[k] = sum;
                    sum += v[k];
                }
                clprim::exclusive_scan(d.begin(), d.end(), out.begin(), queue);
                BOOST_TEST(to_host(out, queue) == expected, "scan between calls " << what);
            } else {
                std::vector<T> keys(v), expected;
                for (auto& k : keys) k &= 3u; // runs of equal values
                std::unique_copy(keys.begin(), keys.end(), std::back_inserter(expected));
                bc::vector<T> dk = to_device(keys, queue);
                const std::size_t runs = clprim::unique(dk.begin(), dk.end(), out.begin(), queue);
                BOOST_TEST(runs == expected.size(), "unique between calls " << what);
            }
            ++i;
        }
    };
    for (const char* tune : {"4,3", "32,5", ""}) {
        env_override t("CLPRIM_COPY_IF_TUNE", tune);
        run_all(std::string("tune ") + (*tune ? tune : "policy's"));
    }
    // Across the wrap: the last epochs, then 1 again on a cleared buffer.
    env_override t("CLPRIM_COPY_IF_TUNE", "4,3");
    clprim::detail::set_next_lookback_epoch(queue, clprim::detail::max_lookback_epoch - 4);
    run_all("across the epoch's wrap");
}

// Two host threads calling copy_if at once, on one in-order queue and then on queues of their
// own: the value-returning call's count word is per host thread (count_read.hpp) and the
// look-back slots are per queue with a new epoch per call, so neither thread may see the other's
// count or status words. Tiny tiles (many slots), sizes alternating; each thread checks its own
// results (Boost.Test's checks are not thread-safe: asserted afterwards).
BOOST_AUTO_TEST_CASE(two_threads_value_and_count_calls)
{
    using T = cl_uint;
    env_override path("CLPRIM_COPY_IF_PATH", "single_pass");
    env_override tune("CLPRIM_COPY_IF_TUNE", "32,5");
    for (bool shared_queue : {true, false}) {
        const auto failure = run_on_two_threads(
            context, device, shared_queue ? &queue : nullptr, 6, [&](int who, bc::command_queue& q, int round) {
                const std::size_t n = (round % 2 ? 3001 : 40009) + std::size_t(who) * 17;
                const auto host = make_data<T>(n, distribution::random, std::uint64_t(who * 100 + round));
                std::vector<T> expected;
                if (who == 0) std::copy_if(host.begin(), host.end(), std::back_inserter(expected), [](T x) { return (x & 1u) != 0; });
                else std::copy_if(host.begin(), host.end(), std::back_inserter(expected), [](T x) { return (x & 63u) == 5u; });
                auto d = to_device(host, q);
                bc::vector<T> out(n, q.get_context());
                const std::size_t count = who == 0 ? clprim::copy_if(d.begin(), d.end(), out.begin(), q, keep_half)
                                                   : clprim::copy_if(d.begin(), d.end(), out.begin(), q, keep_sparse);
                if (count != expected.size())
                    return "round " + std::to_string(round) + " n=" + std::to_string(n) + ": count " + std::to_string(count) +
                           " expected " + std::to_string(expected.size());
                auto h = to_host(out, q);
                h.resize(count);
                if (h != expected) return "round " + std::to_string(round) + " n=" + std::to_string(n) + ": elements differ";
                bc::vector<cl_ulong> c(1, q.get_context());
                if (who == 0) clprim::copy_if(d.begin(), d.end(), out.begin(), c.begin(), q, keep_half);
                else clprim::copy_if(d.begin(), d.end(), out.begin(), c.begin(), q, keep_sparse);
                const cl_ulong hc = to_host(c, q)[0];
                return hc == expected.size() ? std::string()
                                             : "round " + std::to_string(round) + " count_result " + std::to_string(hc);
            });
        for (int who = 0; who < 2; ++who)
            BOOST_TEST(failure[who].empty(), (shared_queue ? "one queue" : "own queues") << ", thread " << who << ": " << failure[who]);
    }
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
    // count_result overlapping the input (same buffer, reinterpreted) or the result: refused.
    bc::buffer words(context, 64 * sizeof(cl_ulong));
    bc::buffer_iterator<T> wt = bc::make_buffer_iterator<T>(words, 0);
    bc::buffer_iterator<cl_ulong> wc = bc::make_buffer_iterator<cl_ulong>(words, 0);
    BOOST_CHECK_THROW(clprim::copy_if(wt, wt + 20, d2.begin(), wc + 3, queue, keep_half), clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::copy_if(d2.begin(), d2.begin() + 20, wt, wc + 3, queue, keep_half),
                      clprim::invalid_argument_error);
}

// The CLPRIM_COPY_IF_* knobs are read only where one may be set (knobs_with_prefix: any override,
// or a variable of the family in the environment): one set straight in the environment, with no
// override alive, still takes effect (a malformed value throws), and not once it is gone.
BOOST_AUTO_TEST_CASE(knobs_from_the_environment)
{
    using T = cl_uint;
    bc::vector<T> d = to_device(std::vector<T>(100, 1u), queue), out(100, context);
    ::setenv("CLPRIM_COPY_IF_TUNE", "not numbers", 1);
    BOOST_CHECK_THROW(clprim::copy_if(d.begin(), d.end(), out.begin(), queue, keep_all), clprim::invalid_argument_error);
    ::unsetenv("CLPRIM_COPY_IF_TUNE");
    BOOST_TEST(clprim::copy_if(d.begin(), d.end(), out.begin(), queue, keep_all) == 100u);
}

BOOST_AUTO_TEST_SUITE_END()

// clprim::unique, run_length_encode, partition_copy, stable_partition and copy_if's count_result
// overload: against host references over runs of length 1, random runs of 1..15, one run; every
// element type (floats by their bits: -0.0 / +0.0 and NaNs of both signs); results with guards;
// count overloads; sub-ranges; an out-of-order queue; both device-wide paths forced.
#define BOOST_TEST_MODULE clprim_selection
#include "by_key_test_checks.hpp"

#include <boost/compute/function.hpp>
#include <boost/compute/lambda.hpp>

using namespace clprim_test;

namespace {

BOOST_COMPUTE_FUNCTION(bool, odd_uint, (cl_uint x), { return (x & 1u) != 0; });

// partition_copy, stable_partition and copy_if's count overload with a predicate on uint.
template <class Pred, class HostPred>
void check_partition(bc::command_queue& queue, const std::vector<cl_uint>& data, Pred pred, HostPred hpred,
                     const std::string& label)
{
    using T = cl_uint;
    const std::size_t n = data.size();
    std::vector<T> et, ef;
    for (T x : data) (hpred(x) ? et : ef).push_back(x);
    auto d = to_device(data, queue);
    const T guard = 0xdeadbeefu;
    bc::vector<T> t = to_device(std::vector<T>(n + 2, guard), queue);
    bc::vector<T> f = to_device(std::vector<T>(n + 2, guard), queue);
    const std::size_t k = clprim::partition_copy(d.begin(), d.end(), t.begin() + 1, f.begin() + 1, queue, pred);
    BOOST_TEST(k == et.size(), label << " partition_copy n=" << n);
    const auto ht = to_host(t, queue), hf = to_host(f, queue);
    std::vector<T> gt(ht.begin() + 1, ht.begin() + 1 + std::min(k, n)), gf(hf.begin() + 1, hf.begin() + 1 + (n - std::min(k, n)));
    BOOST_TEST(bit_equal(gt, et), label << " true group n=" << n << ": first difference at " << first_difference(gt, et));
    BOOST_TEST(bit_equal(gf, ef), label << " false group n=" << n << ": first difference at " << first_difference(gf, ef));
    bool guards = ht.front() == guard && hf.front() == guard;
    for (std::size_t i = 1 + k; i < n + 2; ++i) guards = guards && ht[i] == guard;
    for (std::size_t i = 1 + n - std::min(k, n); i < n + 2; ++i) guards = guards && hf[i] == guard;
    BOOST_TEST(guards, label << " partition_copy n=" << n << ": wrote outside the results");

    bc::vector<cl_ulong> c = to_device(std::vector<cl_ulong>{5, 5, 5}, queue);
    clprim::partition_copy(d.begin(), d.end(), t.begin() + 1, f.begin() + 1, c.begin() + 1, queue, pred);
    auto hc = to_host(c, queue);
    BOOST_TEST((hc[0] == 5 && hc[1] == et.size() && hc[2] == 5), label << " partition_copy count_result " << hc[1]);

    // copy_if with the count on the device.
    bc::vector<T> o = to_device(std::vector<T>(n + 2, guard), queue);
    clprim::copy_if(d.begin(), d.end(), o.begin() + 1, c.begin() + 1, queue, pred);
    hc = to_host(c, queue);
    BOOST_TEST(hc[1] == et.size(), label << " copy_if count_result " << hc[1]);
    const auto ho = to_host(o, queue);
    std::vector<T> go(ho.begin() + 1, ho.begin() + 1 + et.size());
    BOOST_TEST(bit_equal(go, et), label << " copy_if n=" << n);
    BOOST_TEST((ho.front() == guard && ho[1 + et.size()] == guard), label << " copy_if wrote outside the result");

    // stable_partition of a sub-range (guards around it), both overloads.
    std::vector<T> padded(n + 2, guard);
    std::copy(data.begin(), data.end(), padded.begin() + 1);
    std::vector<T> expected = padded;
    std::copy(et.begin(), et.end(), expected.begin() + 1);
    std::copy(ef.begin(), ef.end(), expected.begin() + 1 + et.size());
    auto p = to_device(padded, queue);
    const std::size_t s = clprim::stable_partition(p.begin() + 1, p.end() - 1, queue, pred);
    BOOST_TEST(s == et.size(), label << " stable_partition n=" << n);
    auto hp = to_host(p, queue);
    BOOST_TEST(bit_equal(hp, expected), label << " stable_partition n=" << n << ": first difference at " << first_difference(hp, expected));
    auto p2 = to_device(padded, queue);
    clprim::stable_partition(p2.begin() + 1, p2.end() - 1, c.begin() + 1, queue, pred);
    hc = to_host(c, queue);
    hp = to_host(p2, queue);
    BOOST_TEST(hc[1] == et.size(), label << " stable_partition count_result");
    BOOST_TEST(bit_equal(hp, expected), label << " stable_partition (count_result) n=" << n);
}

// The copy_if single pass's tile shapes for partition (and unique): the policy's, tiny tiles (far
// more than the device runs at once) with each way of compacting, waiting and with every tile's
// decoupled fallback.
struct copy_if_shape {
    const char *tune, *lookback, *compact;
};
const std::vector<copy_if_shape>& copy_if_shapes()
{
    static const std::vector<copy_if_shape> s{{"", "wait", ""},
                                              {"4,3", "wait", "in_place"},
                                              {"4,3", "fallback", "gather"},
                                              {"32,5", "fallback", "rows"},
                                              {"64,31", "wait", "rows"}};
    return s;
}

// The contract's return types (API.md, "By key, selection and positions"): counts as
// std::size_t, the count_result overloads void.
template <class T>
using it = bc::buffer_iterator<T>;
template <class T>
T& val();
using U = cl_uint;
using C = it<cl_ulong>;
static_assert(std::is_same_v<decltype(clprim::reduce_by_key(val<it<U>>(), val<it<U>>(), val<it<U>>(), val<it<U>>(),
                                                            val<it<U>>(), val<bc::command_queue>())),
                             std::size_t>);
static_assert(std::is_same_v<decltype(clprim::reduce_by_key(val<it<U>>(), val<it<U>>(), val<it<U>>(), val<it<U>>(),
                                                            val<it<U>>(), val<bc::command_queue>(), bc::max<U>(), 0u)),
                             std::size_t>);
static_assert(std::is_void_v<decltype(clprim::reduce_by_key(val<it<U>>(), val<it<U>>(), val<it<U>>(), val<it<U>>(),
                                                            val<it<U>>(), val<C>(), val<bc::command_queue>()))>);
static_assert(std::is_void_v<decltype(clprim::reduce_by_key(val<it<U>>(), val<it<U>>(), val<it<U>>(), val<it<U>>(),
                                                            val<it<U>>(), val<C>(), val<bc::command_queue>(),
                                                            bc::max<U>(), 0u))>);
static_assert(std::is_void_v<decltype(clprim::exclusive_scan_by_key(val<it<U>>(), val<it<U>>(), val<it<U>>(),
                                                                    val<it<U>>(), val<bc::command_queue>()))>);
static_assert(std::is_same_v<decltype(clprim::unique(val<it<U>>(), val<it<U>>(), val<it<U>>(), val<bc::command_queue>())),
                             std::size_t>);
static_assert(std::is_void_v<decltype(clprim::unique(val<it<U>>(), val<it<U>>(), val<it<U>>(), val<C>(),
                                                     val<bc::command_queue>()))>);
static_assert(std::is_same_v<decltype(clprim::run_length_encode(val<it<U>>(), val<it<U>>(), val<it<U>>(), val<it<U>>(),
                                                                val<bc::command_queue>())),
                             std::size_t>);
static_assert(std::is_void_v<decltype(clprim::run_length_encode(val<it<U>>(), val<it<U>>(), val<it<U>>(), val<it<U>>(),
                                                                val<C>(), val<bc::command_queue>()))>);
static_assert(std::is_same_v<decltype(clprim::partition_copy(val<it<U>>(), val<it<U>>(), val<it<U>>(), val<it<U>>(),
                                                             val<bc::command_queue>(), odd_uint)),
                             std::size_t>);
static_assert(std::is_void_v<decltype(clprim::partition_copy(val<it<U>>(), val<it<U>>(), val<it<U>>(), val<it<U>>(),
                                                             val<C>(), val<bc::command_queue>(), odd_uint))>);
static_assert(std::is_same_v<decltype(clprim::stable_partition(val<it<U>>(), val<it<U>>(), val<bc::command_queue>(),
                                                               odd_uint)),
                             std::size_t>);
static_assert(std::is_void_v<decltype(clprim::stable_partition(val<it<U>>(), val<it<U>>(), val<C>(),
                                                               val<bc::command_queue>(), odd_uint))>);
static_assert(std::is_void_v<decltype(clprim::copy_if(val<it<U>>(), val<it<U>>(), val<it<U>>(), val<C>(),
                                                      val<bc::command_queue>(), odd_uint))>);
static_assert(std::is_same_v<decltype(clprim::min_element(val<it<U>>(), val<it<U>>(), val<bc::command_queue>())),
                             std::size_t>);
static_assert(std::is_same_v<decltype(clprim::max_element(val<it<U>>(), val<it<U>>(), val<bc::command_queue>())),
                             std::size_t>);

} // namespace

BOOST_FIXTURE_TEST_SUITE(selection, fixture)

BOOST_AUTO_TEST_CASE(unique_and_run_length_encode)
{
    env_override unique_path("CLPRIM_UNIQUE_PATH", "by_key"); // unique_through_copy_if: the other
    for (const char* path : by_key_paths()) {
        env_override force("CLPRIM_BY_KEY_PATH", path);
        for (std::size_t n : by_key_sizes())
            for (const auto& s : run_shapes()) {
                const std::size_t lo = std::min(s.min_run, std::max<std::size_t>(n, 1)), hi = std::min(s.max_run, std::max<std::size_t>(n, 1));
                const std::string label = std::string(path) + " " + s.name;
                check_unique_rle(queue, run_keys<cl_uint>(n, lo, hi), label + " uint");
                if (n > 70000) continue;
                check_unique_rle(queue, run_keys<cl_float>(n, lo, hi), label + " float");
                if (n > 5000) continue;
                // (int and ulong compare by their bits as uint and long do: test_by_key runs them.)
                check_unique_rle(queue, run_keys<cl_long>(n, lo, hi), label + " long");
                if (type_runs_here<cl_double>()) check_unique_rle(queue, run_keys<cl_double>(n, lo, hi), label + " double");
            }
    }
}

// unique through copy_if's single pass (CLPRIM_UNIQUE_PATH=copy_if: an element is kept where its
// bits differ from the one before it, across tile borders): every run shape and size, floats by
// their bits (-0.0 / +0.0, NaNs), 8-byte types; the policy's tiles and tiny ones (thousands of
// tiles) waiting and with every tile's fallback (which counts a tile's run heads from the input),
// each way of compacting.
// By rows the element before each one comes from the previous lane's register
// (CLPRIM_UNIQUE_PREV=registers) or from memory (global, the default): both.
BOOST_AUTO_TEST_CASE(unique_through_copy_if)
{
    env_override unique_path("CLPRIM_UNIQUE_PATH", "copy_if");
    std::vector<std::pair<copy_if_shape, const char*>> forms;
    for (const copy_if_shape& f : copy_if_shapes()) forms.push_back({f, "global"});
    forms.push_back({copy_if_shape{"32,5", "wait", "rows"}, "registers"});
    for (const auto& form : forms) {
        const copy_if_shape& f = form.first;
        env_override tune("CLPRIM_COPY_IF_TUNE", f.tune), lookback("CLPRIM_LOOKBACK", f.lookback),
            compact("CLPRIM_COPY_IF_COMPACT", f.compact), prev("CLPRIM_UNIQUE_PREV", form.second);
        const std::string label = std::string("copy_if path tune ") + (*f.tune ? f.tune : "policy's") + " " + f.lookback +
                                  " " + (*f.compact ? f.compact : "policy's") + " prev " + form.second;
        for (std::size_t n : by_key_sizes())
            for (const auto& s : run_shapes()) {
                if (*f.tune && n > 70000) continue; // tiny tiles: thousands of them at 65537 already
                const bool other_prev = std::string(form.second) == "registers"; // not the default: fewer cases
                if (other_prev && n > 8191) continue;
                const std::size_t lo = std::min(s.min_run, std::max<std::size_t>(n, 1)), hi = std::min(s.max_run, std::max<std::size_t>(n, 1));
                check_unique_rle(queue, run_keys<cl_uint>(n, lo, hi), label + " " + s.name + " uint", false);
                if (n > 5000 || other_prev) continue;
                check_unique_rle(queue, run_keys<cl_float>(n, lo, hi), label + " " + s.name + " float", false);
                check_unique_rle(queue, run_keys<cl_long>(n, lo, hi), label + " " + s.name + " long", false);
                if (type_runs_here<cl_double>()) check_unique_rle(queue, run_keys<cl_double>(n, lo, hi), label + " " + s.name + " double", false);
            }
        // Float bit patterns: -0.0 and +0.0 differ, equal NaNs are one run.
        if (std::string(form.second) == "registers") continue;
        const auto specials = make_data<cl_float>(3001, distribution::float_specials);
        check_unique_rle(queue, specials, label + " float specials", false);
    }
}

// partition_copy, stable_partition (and copy_if's count overload) through the by-key family's
// segmented scan (both device-wide paths) and through copy_if's single pass
// (CLPRIM_PARTITION_PATH=copy_if: kept elements to the first range, the others to the second,
// both in order, from one look-back) in every tile shape.
BOOST_AUTO_TEST_CASE(partition)
{
    std::vector<std::pair<std::string, std::vector<std::pair<const char*, std::string>>>> forms;
    for (const char* path : by_key_paths())
        forms.push_back({std::string("by_key ") + path, {{"CLPRIM_PARTITION_PATH", "by_key"}, {"CLPRIM_BY_KEY_PATH", path}}});
    for (const copy_if_shape& f : copy_if_shapes()) {
        forms.push_back({std::string("copy_if tune ") + (*f.tune ? f.tune : "policy's") + " " + f.lookback + " " +
                             (*f.compact ? f.compact : "policy's"),
                         {{"CLPRIM_PARTITION_PATH", "copy_if"},
                          {"CLPRIM_COPY_IF_TUNE", f.tune},
                          {"CLPRIM_LOOKBACK", f.lookback},
                          {"CLPRIM_COPY_IF_COMPACT", f.compact}}});
    }
    for (const auto& form : forms) {
        std::vector<std::unique_ptr<env_override>> env;
        for (const auto& e : form.second) env.push_back(std::make_unique<env_override>(e.first, e.second));
        const bool tiny = form.second.size() > 2 && !form.second[1].second.empty(); // copy_if, tiny tiles
        for (std::size_t n : by_key_sizes()) {
            if (tiny && n > 8191) continue; // tiny tiles: hundreds of them at 4097 already
            const auto data = make_data<cl_uint>(n, distribution::random);
            const std::string p = form.first;
            check_partition(queue, data, odd_uint, [](cl_uint x) { return (x & 1u) != 0; }, p + " odd");
            if (n > 70000 || tiny) continue;
            using bc::lambda::_1;
            if (form.second.size() == 2) // (by_key; copy_if's policy's shape takes none and all below)
                check_partition(queue, data, _1 > 0x40000000u, [](cl_uint x) { return x > 0x40000000u; }, p + " lambda");
            check_partition(queue, data, _1 > 0xffffffffu, [](cl_uint) { return false; }, p + " none");
            check_partition(queue, data, _1 >= 0u, [](cl_uint) { return true; }, p + " all");
        }
    }
}

// Other element types through partition_copy (floats by value in the predicate, bits kept), both
// paths.
BOOST_AUTO_TEST_CASE(partition_types)
{
    using bc::lambda::_1;
    for (const char* path : {"by_key", "copy_if"})
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(4097)}) {
        env_override force("CLPRIM_PARTITION_PATH", path);
        const auto f = make_data<cl_float>(n, distribution::float_specials);
        std::vector<cl_float> et, ef;
        for (cl_float x : f) (x > 0.0f ? et : ef).push_back(x);
        auto d = to_device(f, queue);
        bc::vector<cl_float> t(n + 1, context), fl(n + 1, context);
        const std::size_t k = clprim::partition_copy(d.begin(), d.end(), t.begin(), fl.begin(), queue, _1 > 0.0f);
        BOOST_TEST(k == et.size());
        const auto ht = to_host(t, queue), hf = to_host(fl, queue);
        BOOST_TEST(bit_equal(std::vector<cl_float>(ht.begin(), ht.begin() + k), et));
        BOOST_TEST(bit_equal(std::vector<cl_float>(hf.begin(), hf.begin() + (n - k)), ef));
        const auto l = make_data<cl_long>(n, distribution::random);
        std::vector<cl_long> lt;
        for (cl_long x : l)
            if (x < 0) lt.push_back(x);
        auto dl = to_device(l, queue);
        const std::size_t kl = clprim::stable_partition(dl.begin(), dl.end(), queue, _1 < 0l);
        BOOST_TEST(kl == lt.size());
        const auto hl = to_host(dl, queue);
        BOOST_TEST(bit_equal(std::vector<cl_long>(hl.begin(), hl.begin() + kl), lt));
        // 1- and 2-byte elements (copy_if's tiles of char and short), both groups in order.
        const auto c = make_data<cl_char>(n, distribution::random);
        std::vector<cl_char> ct, cf;
        for (cl_char x : c) (x < 0 ? ct : cf).push_back(x);
        auto dc = to_device(c, queue);
        bc::vector<cl_char> tc(n + 1, context), fc(n + 1, context);
        const std::size_t kc = clprim::partition_copy(dc.begin(), dc.end(), tc.begin(), fc.begin(), queue, _1 < cl_char(0));
        BOOST_TEST(kc == ct.size(), path << " char n=" << n);
        const auto htc = to_host(tc, queue), hfc = to_host(fc, queue);
        BOOST_TEST((std::vector<cl_char>(htc.begin(), htc.begin() + kc) == ct), path << " char n=" << n);
        BOOST_TEST((std::vector<cl_char>(hfc.begin(), hfc.begin() + (n - kc)) == cf), path << " char n=" << n);
        const auto us = make_data<cl_ushort>(n, distribution::random);
        std::vector<cl_ushort> ut;
        for (cl_ushort x : us)
            if (x & 1u) ut.push_back(x);
        for (cl_ushort x : us)
            if (!(x & 1u)) ut.push_back(x);
        auto du = to_device(us, queue);
        const std::size_t ku = clprim::stable_partition(du.begin(), du.end(), queue, (_1 & 1) == 1);
        BOOST_TEST((to_host(du, queue) == ut), path << " ushort stable_partition n=" << n << " " << ku);
    }
}

// unique and partition_copy through copy_if's one-work-group path (copy_if_small.cl,
// CLPRIM_COPY_IF_SMALL: the largest range and the group's size) at its limit and one past it.
BOOST_AUTO_TEST_CASE(small_path_unique_partition)
{
    env_override unique_path("CLPRIM_UNIQUE_PATH", "copy_if"), partition_path("CLPRIM_PARTITION_PATH", "copy_if");
    using bc::lambda::_1;
    for (const char* shape : {"4096", "2048,64"}) {
        env_override small("CLPRIM_COPY_IF_SMALL", shape);
        const std::string label = std::string("small ") + shape;
        for (std::size_t n : {std::size_t(1), std::size_t(3), std::size_t(2047), std::size_t(2048), std::size_t(2049),
                              std::size_t(4095), std::size_t(4096), std::size_t(4097)}) {
            for (const auto& s : run_shapes()) {
                const std::size_t lo = std::min(s.min_run, n), hi = std::min(s.max_run, n);
                check_unique_rle(queue, run_keys<cl_uint>(n, lo, hi), label + " " + s.name + " uint", false);
            }
            check_unique_rle(queue, run_keys<cl_ulong>(n, 1, 4), label + " ulong", false);
            const auto data = make_data<cl_uint>(n, distribution::random);
            check_partition(queue, data, odd_uint, [](cl_uint x) { return (x & 1u) != 0; }, label + " odd");
            check_partition(queue, data, _1 >= 0u, [](cl_uint) { return true; }, label + " all");
        }
    }
}

// The look-back with its decoupled fallback on tiny tiles (24 elements: thousands of tiles, far
// more than a device runs at once), sizes around tile borders: waiting as usual, then with every
// tile computing its predecessor from the input (CLPRIM_LOOKBACK=fallback); every look-back
// kernel (CLPRIM_BY_KEY_KERNEL).
BOOST_AUTO_TEST_CASE(lookback_fallback_tiny_tiles)
{
    env_override force("CLPRIM_BY_KEY_PATH", "lookback");
    env_override unique_path("CLPRIM_UNIQUE_PATH", "by_key"); // unique_through_copy_if: the other
    env_override partition_path("CLPRIM_PARTITION_PATH", "by_key"); // partition: the other
    env_override tune("CLPRIM_BY_KEY_TUNE", "8,3");
    for (const char* kernel : {"gather", "gather_index", "registers", "lean"}) { // (lean: run-length; the others gather)
    env_override kern("CLPRIM_BY_KEY_KERNEL", std::string(kernel) == "gather_index" ? "gather" : kernel);
    env_override epilogue("CLPRIM_BY_KEY_EPILOGUE", std::string(kernel) == "gather_index" ? "index" : "search");
    for (const char* mode : {"wait", "fallback"}) {
        env_override lookback("CLPRIM_LOOKBACK", mode);
        for (std::size_t n : {std::size_t(23), std::size_t(24), std::size_t(25), std::size_t(48), std::size_t(4099),
                              std::size_t(65537)}) {
            const std::string label = std::string("tiny tiles ") + kernel + " " + mode;
            check_unique_rle(queue, run_keys<cl_uint>(n, 1, 15), label);
            check_unique_rle(queue, run_keys<cl_uint>(n, 1, 1), label + " runs of 1");
            check_partition(queue, make_data<cl_uint>(n, distribution::random), odd_uint,
                            [](cl_uint x) { return (x & 1u) != 0; }, label + " odd");
        }
    }
    }
}

BOOST_AUTO_TEST_CASE(out_of_order_queue)
{
    for (const char* path : {"lookback", "chunks", "copy_if"}) {
        const bool copy_if = std::string(path) == "copy_if";
        env_override force("CLPRIM_BY_KEY_PATH", copy_if ? "" : path);
        env_override unique_path("CLPRIM_UNIQUE_PATH", copy_if ? "copy_if" : "by_key");
        env_override partition_path("CLPRIM_PARTITION_PATH", copy_if ? "copy_if" : "by_key");
        bc::command_queue ooo(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
        const auto data = run_keys<cl_uint>(10007, 1, 15);
        std::vector<cl_uint> ek, ec;
        host_reduce_by_key(data, std::vector<cl_uint>(data.size(), 1u), add_wrap<cl_uint>, ek, ec);
        auto d = to_device(data, queue);
        bc::vector<cl_uint> out(data.size(), context), counts(data.size(), context);
        BOOST_TEST(clprim::unique(d.begin(), d.end(), out.begin(), ooo) == ek.size());
        BOOST_TEST(clprim::run_length_encode(d.begin(), d.end(), out.begin(), counts.begin(), ooo) == ek.size());
        const auto hc = to_host(counts, queue);
        BOOST_TEST(bit_equal(std::vector<cl_uint>(hc.begin(), hc.begin() + ec.size()), ec));
        std::size_t odd = 0;
        for (cl_uint x : data) odd += x & 1u;
        BOOST_TEST(clprim::stable_partition(d.begin(), d.end(), ooo, odd_uint) == odd);
        bc::vector<cl_uint> other(data.size(), context);
        BOOST_TEST(clprim::partition_copy(d.begin(), d.end(), out.begin(), other.begin(), ooo, odd_uint) == odd);
        const auto ho = to_host(out, queue), hf = to_host(other, queue);
        bool grouped = true;
        for (std::size_t i = 0; i < data.size(); ++i) grouped = grouped && ((i < odd ? ho[i] : hf[i - odd]) & 1u) == (i < odd);
        BOOST_TEST(grouped, path << " partition_copy on an out-of-order queue");
        bc::vector<cl_ulong> c(1, context);
        clprim::copy_if(d.begin(), d.end(), out.begin(), c.begin(), ooo, odd_uint);
        ooo.finish();
        BOOST_TEST(to_host(c, queue)[0] == odd, path);
    }
}

BOOST_AUTO_TEST_CASE(bad_input_throws)
{
    auto d = to_device(std::vector<cl_uint>(100, 1u), queue);
    bc::vector<cl_uint> out(100, context);
    BOOST_CHECK_THROW(clprim::unique(d.begin(), d.end(), d.begin() + 10, queue), clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::unique(d.end(), d.begin(), out.begin(), queue), clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::partition_copy(d.begin(), d.end(), out.begin(), out.begin() + 50, queue, odd_uint),
                      clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::partition_copy(d.begin(), d.end(), out.begin(), d.begin(), queue, odd_uint),
                      clprim::invalid_argument_error);
    bc::vector<cl_uint> counts(100, context);
    BOOST_CHECK_THROW(clprim::run_length_encode(d.begin(), d.end(), out.begin(), d.begin(), queue),
                      clprim::invalid_argument_error);
    // Room for 10 of 100 distinct elements: an error, after writing what fits.
    std::vector<cl_uint> distinct(100);
    for (cl_uint i = 0; i < 100; ++i) distinct[i] = i;
    auto dd = to_device(distinct, queue);
    bc::vector<cl_uint> small(10, context);
    BOOST_CHECK_THROW(clprim::unique(dd.begin(), dd.end(), small.begin(), queue), clprim::invalid_argument_error);
}

BOOST_AUTO_TEST_SUITE_END()

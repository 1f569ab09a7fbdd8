// Vector values (Boost.Compute vector types of 8, 16 and 32 bytes: int2, float2, float4, uint4,
// double2, long4) travelling with their keys through sort_by_key (the radix sort on every path,
// the merge sort, bitonic, the comparator sort), segmented_sort_by_key, merge_by_key and
// top_k_by_key: every value's bytes unchanged (random bit patterns, NaN payloads included), and
// the stable sorts' values in the stable order. A matrix: each function takes the value widths
// that differ for it (local-memory staging of 16- and 32-byte values), not every pair of types.
#define BOOST_TEST_MODULE clprim_vector_values
#include "sort_test_support.hpp"

#include <clprim/clprim.hpp>

#include <numeric>

using namespace clprim_test;

namespace {

using order_t = clprim::sort_order;
using vector_types = boost::mpl::list<bc::int2_, bc::float2_, bc::float4_, bc::uint4_, bc::double2_, bc::long4_>;

template <class V>
bool value_type_runs_here()
{
    if constexpr (std::is_same_v<V, bc::double2_>) return type_runs_here<cl_double>();
    return true;
}

// Values of random bytes, different for every position.
template <class V>
std::vector<V> make_values(std::size_t n, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::vector<V> v(n);
    for (std::size_t i = 0; i < n; ++i) {
        unsigned char b[sizeof(V)];
        for (std::size_t j = 0; j < sizeof(V); ++j) b[j] = static_cast<unsigned char>(rng());
        std::memcpy(b, &i, std::min(sizeof i, sizeof(V)) / 2); // the position in the low bytes: distinct
        std::memcpy(static_cast<void*>(&v[i]), b, sizeof(V));
    }
    return v;
}

template <class K>
std::vector<std::size_t> stable_order(const std::vector<K>& keys, order_t o)
{
    std::vector<std::size_t> idx(keys.size());
    std::iota(idx.begin(), idx.end(), std::size_t(0));
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
        return o == order_t::ascending ? total_less(keys[a], keys[b]) : total_less(keys[b], keys[a]);
    });
    return idx;
}

template <class T>
std::vector<T> gather(const std::vector<T>& v, const std::vector<std::size_t>& idx)
{
    std::vector<T> r(idx.size());
    for (std::size_t i = 0; i < idx.size(); ++i) r[i] = v[idx[i]];
    return r;
}

// Sorts (keys, vector values) between guards with sort(kf, kl, vf, q, order) and checks keys and
// values bit for bit against the stable order (stable) or that every value sits beside its key.
template <class K, class V, class Sort>
void check_pairs(std::size_t n, distribution d, order_t o, bool stable, Sort&& sort, const std::string& label)
{
    auto& q = device_under_test::get().queue;
    const auto keys = make_data<K>(n, d);
    const auto vals = make_values<V>(n, n + 7);
    guarded_vector<K> kv(keys, K(7), q);
    V g;
    std::memset(static_cast<void*>(&g), 0x5a, sizeof g);
    guarded_vector<V> vv(vals, g, q);
    sort(kv.first(), kv.last(), vv.first(), q, o);
    bool kg = false, vg = false;
    const auto got_k = kv.result(q, kg);
    const auto got_v = vv.result(q, vg);
    const std::string what = type_label<K>() + "/" + type_label<V>() + " n=" + std::to_string(n) + " " + name_of(d) +
                             (o == order_t::ascending ? " asc " : " desc ") + label;
    BOOST_TEST((kg && vg), what << ": guard overwritten");
    const auto idx = stable_order(keys, o);
    BOOST_TEST(first_difference(got_k, gather(keys, idx)) == -1, what << ": keys wrong");
    if (stable) {
        BOOST_TEST(first_difference(got_v, gather(vals, idx)) == -1, what << ": values wrong or not stable");
    } else {
        // Values are distinct: each must be one of its key's values.
        bool ok = true;
        std::vector<std::pair<K, V>> want(n), got(n);
        for (std::size_t i = 0; i < n; ++i) {
            want[i] = {keys[i], vals[i]};
            got[i] = {got_k[i], got_v[i]};
        }
        auto less = [](const std::pair<K, V>& a, const std::pair<K, V>& b) {
            return std::memcmp(&a.second, &b.second, sizeof(V)) < 0;
        };
        std::sort(want.begin(), want.end(), less);
        std::sort(got.begin(), got.end(), less);
        for (std::size_t i = 0; i < n && ok; ++i)
            ok = std::memcmp(&want[i].first, &got[i].first, sizeof(K)) == 0 &&
                 std::memcmp(&want[i].second, &got[i].second, sizeof(V)) == 0;
        BOOST_TEST(ok, what << ": values do not follow their keys");
    }
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(vector_values_suite, fixture)

// The radix sort on every path, uint keys; the widest and narrowest values take 16-bit and 64-bit
// keys too.
BOOST_AUTO_TEST_CASE_TEMPLATE(radix_sort_by_key_paths, V, vector_types)
{
    if (!value_type_runs_here<V>()) return;
    for (const char* path : {"onesweep", "multipass", "cpu", "small"}) {
        env_override p("CLPRIM_RADIX_PATH", path);
        std::vector<std::size_t> sizes{0, 1, 33, 4096, 70001};
        if (!device_under_test::get().is_cpu()) sizes.push_back((std::size_t(1) << 22) + 5);
        for (std::size_t n : sizes) {
            if (std::string(path) == "small" && n > 4096) continue;
            for (order_t o : {order_t::ascending, order_t::descending})
                if (o == order_t::ascending || sizeof(V) >= 16) // descending: the wide values
                check_pairs<cl_uint, V>(n, n > 4096 ? distribution::random : distribution::few_distinct, o, true,
                                        [](auto f, auto l, auto v, auto& q, order_t od) { clprim::sort_by_key(f, l, v, q, clprim::sort_algorithm::radix, od); },
                                        std::string("radix ") + path);
        }
        if (sizeof(V) == 8 || sizeof(V) == 32) {
            check_pairs<cl_ushort, V>(5000, distribution::random, order_t::ascending, true,
                                      [](auto f, auto l, auto v, auto& q, order_t od) { clprim::radix_sort_by_key(f, l, v, q, od); },
                                      std::string("radix ushort ") + path);
            check_pairs<cl_ulong, V>(5000, distribution::few_distinct, order_t::descending, true,
                                     [](auto f, auto l, auto v, auto& q, order_t od) { clprim::radix_sort_by_key(f, l, v, q, od); },
                                     std::string("radix ulong ") + path);
        }
    }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(other_sorts, V, vector_types)
{
    if (!value_type_runs_here<V>()) return;
    for (const char* path : {"gpu", "cpu"}) {
        env_override p("CLPRIM_MERGE_PATH", path);
        const order_t o = std::string(path) == "gpu" ? order_t::ascending : order_t::descending;
        check_pairs<cl_float, V>(9000, distribution::float_specials, o, true,
                                     [](auto f, auto l, auto v, auto& q, order_t od) { clprim::sort_by_key(f, l, v, q, clprim::sort_algorithm::merge, od); },
                                     std::string("merge ") + path);
    }
    check_pairs<cl_int, V>(3000, distribution::random, order_t::descending, false,
                           [](auto f, auto l, auto v, auto& q, order_t od) { clprim::sort_by_key(f, l, v, q, clprim::sort_algorithm::bitonic, od); },
                           "bitonic");
    check_pairs<cl_int, V>(300, distribution::random, order_t::ascending, false,
                           [](auto f, auto l, auto v, auto& q, order_t od) { clprim::sort_by_key(f, l, v, q, clprim::sort_algorithm::odd_even, od); },
                           "odd_even");
    check_pairs<cl_int, V>(3000, distribution::few_distinct, order_t::ascending, true,
                           [](auto f, auto l, auto v, auto& q, order_t) { clprim::sort_by_key(f, l, v, q, bc::less<cl_int>()); },
                           "comparator");
}

BOOST_AUTO_TEST_CASE_TEMPLATE(segmented_sort_by_key_values, V, vector_types)
{
    if (!value_type_runs_here<V>()) return;
    const std::size_t n = 30000;
    // Many short segments and a few long ones (more than the batch of long segments: packed sort).
    std::vector<cl_uint> offs{0};
    std::mt19937 rng(3);
    while (offs.back() < n) offs.push_back(std::min<cl_uint>(cl_uint(n), offs.back() + (rng() % 10 == 0 ? 1500 : rng() % 40)));
    for (const char* path : {"gpu", "cpu"}) {
        env_override p("CLPRIM_SEGMENTED_PATH", path);
        for (order_t o : {order_t::ascending, order_t::descending}) {
            const auto keys = make_data<cl_uint>(n, distribution::few_distinct);
            const auto vals = make_values<V>(n, 11);
            auto dk = to_device(keys, queue);
            auto dv = to_device(vals, queue);
            auto doffs = to_device(offs, queue);
            clprim::segmented_sort_by_key(dk.begin(), dk.end(), dv.begin(), doffs.begin(), doffs.end(), queue, o);
            std::vector<cl_uint> wk(n);
            std::vector<V> wv(n);
            for (std::size_t s = 0; s + 1 < offs.size(); ++s) {
                std::vector<cl_uint> sk(keys.begin() + offs[s], keys.begin() + offs[s + 1]);
                const auto idx = stable_order(sk, o);
                for (std::size_t i = 0; i < idx.size(); ++i) {
                    wk[offs[s] + i] = sk[idx[i]];
                    wv[offs[s] + i] = vals[offs[s] + idx[i]];
                }
            }
            BOOST_TEST(first_difference(to_host(dk, queue), wk) == -1, "segmented keys " << path);
            BOOST_TEST(first_difference(to_host(dv, queue), wv) == -1, "segmented values " << path << " " << type_label<V>());
        }
    }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(merge_by_key_values, V, vector_types)
{
    if (!value_type_runs_here<V>()) return;
    for (const char* path : {"gpu", "cpu", "walk"}) { // walk: the GPU path's persistent walk (merge_walk)
        const bool walk = std::string(path) == "walk";
        env_override p("CLPRIM_MERGE_PATH", walk ? "gpu" : path);
        env_override w("CLPRIM_MERGE_WALK", walk ? "2,32,2" : "0");
        for (order_t o : {order_t::ascending, order_t::descending})
            for (std::size_t n1 : {std::size_t(0), std::size_t(777), std::size_t(20000)}) {
                const std::size_t n2 = 5003;
                auto k1 = make_data<cl_uint>(n1, distribution::few_distinct, 1);
                auto k2 = make_data<cl_uint>(n2, distribution::few_distinct, 2);
                const auto i1 = stable_order(k1, o), i2 = stable_order(k2, o);
                k1 = gather(k1, i1);
                k2 = gather(k2, i2);
                const auto v1 = make_values<V>(n1, 5), v2 = make_values<V>(n2, 6);
                auto dk1 = to_device(k1, queue), dk2 = to_device(k2, queue);
                auto dv1 = to_device(v1, queue), dv2 = to_device(v2, queue);
                bc::vector<cl_uint> ok(n1 + n2, context);
                bc::vector<V> ov(n1 + n2, context);
                clprim::merge_by_key(dk1.begin(), dk1.end(), dv1.begin(), dk2.begin(), dk2.end(), dv2.begin(), ok.begin(),
                                     ov.begin(), queue, o);
                // Reference: stable merge, the first range's equal keys first.
                std::vector<cl_uint> wk;
                std::vector<V> wv;
                std::size_t a = 0, b = 0;
                while (a < n1 || b < n2) {
                    const bool take_b = a == n1 || (b < n2 && (o == order_t::ascending ? k2[b] < k1[a] : k1[a] < k2[b]));
                    if (take_b) {
                        wk.push_back(k2[b]);
                        wv.push_back(v2[b++]);
                    } else {
                        wk.push_back(k1[a]);
                        wv.push_back(v1[a++]);
                    }
                }
                BOOST_TEST(first_difference(to_host(ok, queue), wk) == -1, "merge_by_key keys " << path << " n1=" << n1);
                BOOST_TEST(first_difference(to_host(ov, queue), wv) == -1,
                           "merge_by_key values " << path << " n1=" << n1 << " " << type_label<V>());
            }
    }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(top_k_by_key_values, V, vector_types)
{
    if (!value_type_runs_here<V>()) return;
    const std::size_t n = 40000;
    const auto keys = make_data<cl_uint>(n, distribution::few_distinct);
    const auto vals = make_values<V>(n, 9);
    auto dk = to_device(keys, queue);
    auto dv = to_device(vals, queue);
    for (const char* path : {"select", "sort"})
        for (order_t o : {order_t::ascending, order_t::descending})
            for (std::size_t k : {std::size_t(1), std::size_t(100), std::size_t(5000)}) {
                env_override p("CLPRIM_TOPK_PATH", path);
                bc::vector<cl_uint> ok(k, context);
                bc::vector<V> ov(k, context);
                clprim::top_k_by_key(dk.begin(), dk.end(), dv.begin(), k, ok.begin(), ov.begin(), queue, o);
                auto idx = stable_order(keys, o);
                idx.resize(k);
                BOOST_TEST(first_difference(to_host(ok, queue), gather(keys, idx)) == -1, "top_k keys " << path << " k=" << k);
                BOOST_TEST(first_difference(to_host(ov, queue), gather(vals, idx)) == -1,
                           "top_k values " << path << " k=" << k << " " << type_label<V>());
            }
}

// The OpenCL API's own vector types (cl_float4, cl_long4: unions Boost.Compute has no name for)
// through buffer iterators of that type, on the clprim sorts and the boost_compute switch.
BOOST_AUTO_TEST_CASE(opencl_vector_types)
{
    const std::size_t n = 5000;
    const auto keys = make_data<cl_uint>(n, distribution::few_distinct);
    const auto vals = make_values<bc::long4_>(n, 21);
    const auto idx = stable_order(keys, order_t::ascending);
    for (auto alg : {clprim::sort_algorithm::radix, clprim::sort_algorithm::merge, clprim::sort_algorithm::boost_compute}) {
        auto dk = to_device(keys, queue);
        auto dv = to_device(vals, queue);
        clprim::sort_by_key(dk.begin(), dk.end(), bc::buffer_iterator<cl_long4>(dv.get_buffer(), 0), queue, alg);
        const auto gk = to_host(dk, queue);
        const auto gv = to_host(dv, queue);
        BOOST_TEST(first_difference(gk, gather(keys, idx)) == -1, "keys, algorithm " << int(alg));
        if (alg != clprim::sort_algorithm::boost_compute) {
            BOOST_TEST(first_difference(gv, gather(vals, idx)) == -1, "values, algorithm " << int(alg));
        } else { // each value beside its own key (the position is in its low bytes)
            bool ok = true;
            for (std::size_t i = 0; i < n && ok; ++i) {
                std::uint64_t pos = 0;
                std::memcpy(&pos, &gv[i], 8);
                pos &= 0xffffffffull; // make_values: the position in the low 4 bytes of an 8-byte word
                ok = pos < n && gk[i] == keys[pos] && std::memcmp(&gv[i], &vals[pos], sizeof(bc::long4_)) == 0;
            }
            BOOST_TEST(ok, "boost_compute: values beside their keys");
        }
    }
    auto dk = to_device(keys, queue);
    auto dv = to_device(vals, queue);
    bc::vector<cl_uint> ok(10, context);
    bc::vector<bc::long4_> ov(10, context);
    clprim::top_k_by_key(dk.begin(), dk.end(), bc::buffer_iterator<cl_long4>(dv.get_buffer(), 0), 10, ok.begin(),
                         bc::buffer_iterator<cl_long4>(ov.get_buffer(), 0), queue, order_t::ascending);
    auto first10 = idx;
    first10.resize(10);
    BOOST_TEST(first_difference(to_host(ov, queue), gather(vals, first10)) == -1, "top_k_by_key cl_long4");
}

BOOST_AUTO_TEST_CASE(out_of_order_queue)
{
    bc::command_queue ooq(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    check_pairs<cl_uint, bc::float4_>(50001, distribution::random, order_t::ascending, true,
                                      [&](auto f, auto l, auto v, auto&, order_t od) {
                                          clprim::sort_by_key(f, l, v, ooq, clprim::sort_algorithm::radix, od);
                                          ooq.finish();
                                      },
                                      "out-of-order queue");
}

BOOST_AUTO_TEST_SUITE_END()

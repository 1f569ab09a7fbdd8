// multi_device_sort / multi_device_sort_by_key against std::stable_sort by the total order, bit for
// bit: every key type, both orders, sizes 0, 1, primes and 2^k +- 1; chunk caps that make 1, 2, 7
// and 100+ chunks (CLPRIM_MULTI_CHUNK, and the scratch cap CLPRIM_SCRATCH_LIMIT_MB); both merge
// paths and both at once (CLPRIM_MULTI_MERGE=device|host|both) and both stagings (CLPRIM_MULTI_STAGING, pinned with
// tiny blocks so that a chunk takes many: CLPRIM_MULTI_STAGING_TUNE); by_key
// stability with many ties; the distributions (float specials by their bits); one queue, two
// queues on one device, an out-of-order queue, every device of the platform (CTest runs this
// suite with POCL_DEVICES="pthread pthread": two PoCL devices) in one context and in a context
// each; bad input; allocation failures leave the data a permutation of the input, or sorted.
#define BOOST_TEST_MODULE clprim_multi_device_sort
#include "sort_test_support.hpp"

#include <clprim/detail/scratch_pool.hpp>
#include <clprim/multi_device.hpp>

using namespace clprim_test;

namespace {

using order_t = clprim::sort_order;
using key_types = boost::mpl::list<cl_uint, cl_int, cl_float, cl_ulong, cl_long, cl_double>;

const char* name_of(order_t o) { return o == order_t::ascending ? "asc" : "desc"; }

// Stable reference of keys with values: the values of equal keys keep their input order.
template <class K, class V>
void reference_pairs(std::vector<K>& keys, std::vector<V>& values, order_t order)
{
    std::vector<std::size_t> idx(keys.size());
    for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
        return order == order_t::ascending ? total_less(keys[a], keys[b]) : total_less(keys[b], keys[a]);
    });
    std::vector<K> k(keys.size());
    std::vector<V> v(values.size());
    for (std::size_t i = 0; i < idx.size(); ++i) {
        k[i] = keys[idx[i]];
        v[i] = values[idx[i]];
    }
    keys.swap(k);
    values.swap(v);
}

std::vector<bc::command_queue> one_queue() { return {device_under_test::get().queue}; }

// Sorts make_data<T>(n, d) with the queues and checks it against the stable reference.
template <class T>
void check_keys(std::size_t n, distribution d, order_t order, std::vector<bc::command_queue> queues,
                const std::string& label)
{
    auto data = make_data<T>(n, d);
    const auto expected = reference(data, order);
    clprim::multi_device_sort(data, queues, order);
    const long diff = first_difference(data, expected);
    BOOST_TEST(diff == -1, type_label<T>() << " n=" << n << " " << clprim_test::name_of(d) << " " << name_of(order)
                                           << " " << label << ": first difference at " << diff);
}

// Keys with values = input positions (as V): keys bit for bit, values in the stable order.
// pool > 0: the keys are drawn from `pool` values of distribution d (ties of many distinct keys).
template <class K, class V>
void check_pairs(std::size_t n, distribution d, order_t order, std::vector<bc::command_queue> queues,
                 const std::string& label, std::size_t pool = 0)
{
    auto keys = make_data<K>(n, d, 777);
    if (pool > 0) {
        const auto values_of_pool = make_data<K>(pool, d, 778);
        std::mt19937_64 rng(n);
        for (auto& k : keys) k = values_of_pool[rng() % pool];
    }
    std::vector<V> values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = V(i);
    auto ek = keys;
    auto ev = values;
    reference_pairs(ek, ev, order);
    clprim::multi_device_sort_by_key(keys, values, queues, order);
    const long kd = first_difference(keys, ek), vd = first_difference(values, ev);
    BOOST_TEST((kd == -1 && vd == -1), type_label<K>() << "->" << type_label<V>() << " n=" << n << " "
                                                        << clprim_test::name_of(d) << " " << name_of(order) << " "
                                                        << label << ": keys differ at " << kd << ", values at " << vd);
}

// The chunk cap that cuts n keys into `chunks` chunks.
std::string cap_for(std::size_t n, std::size_t chunks)
{
    return std::to_string(std::max<std::size_t>(1, (n + chunks - 1) / chunks));
}

// Queues on every device of the device under test's platform: in one shared context, or each
// in its own context.
std::vector<bc::command_queue> platform_queues(bool shared_context)
{
    const auto devices = device_under_test::get().device.platform().devices();
    std::vector<bc::command_queue> queues;
    if (shared_context) {
        bc::context context(devices);
        for (const auto& d : devices) queues.emplace_back(context, d);
    } else {
        for (const auto& d : devices) queues.emplace_back(bc::context(d), d);
    }
    return queues;
}

bool can_sort_double_everywhere(const std::vector<bc::command_queue>& queues)
{
    for (const auto& q : queues)
        if (!q.get_device().supports_extension("cl_khr_fp64") &&
            q.get_device().get_info<cl_device_fp_config>(CL_DEVICE_DOUBLE_FP_CONFIG) == 0)
            return false;
    return true;
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(multi_device_sort, fixture)

BOOST_AUTO_TEST_CASE(bad_input)
{
    std::vector<bc::command_queue> none;
    std::vector<cl_uint> keys{3, 1, 2};
    std::vector<cl_uint> values{1, 2};
    BOOST_CHECK_THROW(clprim::multi_device_sort(keys, none), clprim::invalid_argument_error);
    std::vector<cl_uint> empty;
    BOOST_CHECK_THROW(clprim::multi_device_sort(empty, none), clprim::invalid_argument_error);
    auto queues = one_queue();
    BOOST_CHECK_THROW(clprim::multi_device_sort_by_key(keys, values, queues), clprim::invalid_argument_error);
    BOOST_TEST((keys == std::vector<cl_uint>{3, 1, 2}));
    BOOST_CHECK_THROW(clprim::multi_device_sort_by_key(keys, values, none), clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::multi_device_sort_by_key(empty, empty, none), clprim::invalid_argument_error);
    env_override bad("CLPRIM_MULTI_MERGE", "gpu");
    BOOST_CHECK_THROW(clprim::multi_device_sort(keys, queues), clprim::invalid_argument_error);
}

// A few hundred keys in 8 chunks: every path at once, small enough for Oclgrind
// (--run_test=multi_device_sort/small).
BOOST_AUTO_TEST_CASE(small)
{
    const std::size_t n = 301;
    env_override cap("CLPRIM_MULTI_CHUNK", cap_for(n, 8));
    for (const char* merge : {"device", "host", "both"})
        for (const char* staging : {"direct", "pinned"}) {
            env_override m("CLPRIM_MULTI_MERGE", merge);
            env_override s("CLPRIM_MULTI_STAGING", staging);
            env_override blocks("CLPRIM_MULTI_STAGING_TUNE", "1,2");
            const std::string label = std::string(merge) + " merge, " + staging;
            check_keys<cl_uint>(n, distribution::random, order_t::ascending, one_queue(), label);
            check_pairs<cl_float, cl_uint>(n, distribution::float_specials, order_t::descending, one_queue(), label);
        }
}

// Every key type, both orders, sizes from 0 up; one chunk, 2 and 7 chunks; both merges.
BOOST_AUTO_TEST_CASE_TEMPLATE(keys_every_type, T, key_types)
{
    if (!type_runs_here<T>()) return;
    for (order_t order : {order_t::ascending, order_t::descending})
        for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(2), std::size_t(31), std::size_t(4097),
                              std::size_t(65537)})
            for (std::size_t chunks : {1, 2, 7})
                for (const char* merge : {"device", "host"}) {
                    if (chunks == 1 && std::string(merge) == "host") continue;
                    env_override cap("CLPRIM_MULTI_CHUNK", cap_for(n, chunks));
                    env_override m("CLPRIM_MULTI_MERGE", merge);
                    check_keys<T>(n, distribution::random, order, one_queue(),
                                  std::to_string(chunks) + " chunks, " + merge + " merge");
                }
}

// Distributions (ties, sorted and reversed runs, float specials with both zeros and NaNs) with
// 7 chunks, both merges and both stagings.
BOOST_AUTO_TEST_CASE_TEMPLATE(distributions, T, key_types)
{
    if (!type_runs_here<T>()) return;
    const std::size_t n = 100003;
    env_override cap("CLPRIM_MULTI_CHUNK", cap_for(n, 7));
    for (distribution d : all_distributions())
        for (const char* merge : {"device", "host"})
            for (const char* staging : {"direct", "pinned"}) {
                env_override m("CLPRIM_MULTI_MERGE", merge);
                env_override s("CLPRIM_MULTI_STAGING", staging);
                env_override blocks("CLPRIM_MULTI_STAGING_TUNE", "4,2,2"); // 4 KiB blocks, 2 per ring
                const order_t order = std::string(staging) == "direct" ? order_t::ascending : order_t::descending;
                check_keys<T>(n, d, order, one_queue(), std::string(merge) + " merge, " + staging);
            }
}

// Stability: few distinct keys (long runs of ties across chunks), values = input positions.
BOOST_AUTO_TEST_CASE_TEMPLATE(by_key_stable, K, key_types)
{
    if (!type_runs_here<K>()) return;
    for (order_t order : {order_t::ascending, order_t::descending})
        for (std::size_t n : {std::size_t(1), std::size_t(257), std::size_t(65535)})
            for (const char* merge : {"device", "host", "both"}) {
                env_override cap("CLPRIM_MULTI_CHUNK", cap_for(n, 7));
                env_override m("CLPRIM_MULTI_MERGE", merge);
                check_pairs<K, cl_uint>(n, distribution::few_distinct, order, one_queue(), merge);
                if (n < 65535) continue;
                check_pairs<K, cl_uint>(n, distribution::float_specials, order, one_queue(), merge);
                check_pairs<K, cl_uint>(n, distribution::random, order, one_queue(), std::string(merge) + ", 100 keys", 100);
            }
}

// Values of every width; 100+ chunks; the pinned staging.
BOOST_AUTO_TEST_CASE(by_key_value_types)
{
    const std::size_t n = 20011;
    env_override cap("CLPRIM_MULTI_CHUNK", cap_for(n, 131));
    for (const char* merge : {"device", "host"}) {
        env_override m("CLPRIM_MULTI_MERGE", merge);
        check_pairs<cl_uint, cl_ulong>(n, distribution::few_distinct, order_t::ascending, one_queue(), merge);
        check_pairs<cl_float, cl_int>(n, distribution::float_specials, order_t::descending, one_queue(), merge);
        check_pairs<cl_ulong, cl_uint>(n, distribution::random, order_t::ascending, one_queue(), merge);
        if (type_runs_here<cl_double>())
            check_pairs<cl_long, cl_double>(n, distribution::few_distinct, order_t::descending, one_queue(), merge);
        env_override s("CLPRIM_MULTI_STAGING", "pinned");
        env_override blocks("CLPRIM_MULTI_STAGING_TUNE", "1,3");
        check_pairs<cl_int, cl_long>(n, distribution::few_distinct, order_t::ascending, one_queue(),
                                     std::string(merge) + " pinned");
    }
}

// The scratch cap alone makes the chunks: 1 MiB for uint keys with uint values is 32K keys at
// most per slot with its alternate buffers, so 2^20 + 3 pairs make 40 or more chunks.
BOOST_AUTO_TEST_CASE(scratch_cap_makes_chunks)
{
    env_override limit("CLPRIM_SCRATCH_LIMIT_MB", "1");
    const std::size_t n = (std::size_t(1) << 20) + 3;
    check_pairs<cl_uint, cl_uint>(n, distribution::random, order_t::ascending, one_queue(), "1 MiB scratch cap");
    env_override m("CLPRIM_MULTI_MERGE", "host");
    check_keys<cl_float>(n, distribution::float_specials, order_t::descending, one_queue(), "1 MiB cap, host merge");
}

// Large inputs: 2^22 - 1 uint keys and 2^22 + 1 pairs in 8 and 128 chunks (2^23 on GPUs).
BOOST_AUTO_TEST_CASE(large)
{
    const bool cpu = on_cpu();
    const std::size_t n = (std::size_t(1) << (cpu ? 22 : 23)) - 1;
    {
        env_override cap("CLPRIM_MULTI_CHUNK", cap_for(n, 8));
        check_keys<cl_uint>(n, distribution::random, order_t::ascending, one_queue(), "8 chunks");
        // Pinned blocks of MiBs copied by teams of threads.
        env_override s("CLPRIM_MULTI_STAGING", "pinned");
        env_override blocks("CLPRIM_MULTI_STAGING_TUNE", "1536,3,4");
        check_keys<cl_uint>(n, distribution::random, order_t::descending, one_queue(), "8 chunks, pinned, copy teams");
    }
    env_override cap("CLPRIM_MULTI_CHUNK", cap_for(n + 2, 128));
    for (const char* merge : {"device", "host"}) {
        env_override m("CLPRIM_MULTI_MERGE", merge);
        check_pairs<cl_uint, cl_uint>(n + 2, distribution::random, order_t::descending, one_queue(),
                                      std::string("128 chunks, ") + merge);
    }
    if (!cpu) check_keys<cl_uint>(n, distribution::random, order_t::ascending, one_queue(), "default chunks");
}

// Queue lists: two queues on one device, the same queue twice, an out-of-order queue, every device
// of the platform in one context and in a context each.
BOOST_AUTO_TEST_CASE(queue_lists)
{
    const std::size_t n = 50021;
    env_override cap("CLPRIM_MULTI_CHUNK", cap_for(n, 9));
    bc::command_queue second(context, device);
    bc::command_queue out_of_order(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    std::vector<std::pair<std::string, std::vector<bc::command_queue>>> lists{
        {"two queues on one device", {queue, second}},
        {"the same queue twice", {queue, queue}},
        {"an out-of-order queue", {out_of_order}},
        {"an out-of-order and an in-order queue", {out_of_order, second}},
        {"platform devices, one context", platform_queues(true)},
        {"platform devices, a context each", platform_queues(false)}};
    BOOST_TEST_MESSAGE("devices on the platform: " << lists[4].second.size());
    for (auto& l : lists)
        for (const char* merge : {"device", "host", "both"}) {
            env_override m("CLPRIM_MULTI_MERGE", merge);
            const std::string label = l.first + ", " + merge + " merge";
            check_keys<cl_uint>(n, distribution::random, order_t::ascending, l.second, label);
            check_pairs<cl_int, cl_uint>(n, distribution::few_distinct, order_t::descending, l.second, label);
            if (can_sort_double_everywhere(l.second))
                check_keys<cl_double>(n, distribution::float_specials, order_t::descending, l.second, label);
        }
    // Data that fits: one chunk per queue (then a merge of those runs), by default.
    {
        env_override no_cap("CLPRIM_MULTI_CHUNK", nullptr);
        for (const char* merge : {"device", "host"}) {
            env_override m("CLPRIM_MULTI_MERGE", merge);
            check_pairs<cl_uint, cl_uint>(n, distribution::few_distinct, order_t::ascending, platform_queues(true),
                                          std::string("platform devices, a chunk each, ") + merge);
            check_keys<cl_float>(n, distribution::float_specials, order_t::descending, {queue, second},
                                 std::string("two queues, a chunk each, ") + merge);
        }
    }
    // Several devices, more than 100 chunks, pinned staging.
    env_override many("CLPRIM_MULTI_CHUNK", cap_for(n, 101));
    env_override s("CLPRIM_MULTI_STAGING", "pinned");
    check_pairs<cl_uint, cl_uint>(n, distribution::random, order_t::ascending, platform_queues(true),
                                  "platform devices, 101 chunks, pinned");
}

// A device allocation that fails anywhere (the slots, a sort's scratch in phase 1 or in the
// device merge) leaves the data a permutation of its input or sorted, and the error is a
// clprim::error. With no scratch pool every sort allocates, so the merge's sorts can fail too:
// that data ends sorted (the host merges the pieces again).
BOOST_AUTO_TEST_CASE(allocation_failures)
{
    const std::size_t n = 30011;
    env_override cap("CLPRIM_MULTI_CHUNK", cap_for(n, 3));
    env_override pool("CLPRIM_SCRATCH_LIMIT_MB", "0");
    env_override m("CLPRIM_MULTI_MERGE", "device");
    const auto input = make_data<cl_uint>(n, distribution::random);
    const auto sorted = reference(input, order_t::ascending);
    int threw = 0, threw_sorted = 0;
    for (unsigned after = 0; after < 40; ++after) {
        auto data = input;
        auto queues = one_queue();
        bool failed = false;
        clprim::detail::scratch_fail_next(2, after); // the allocation and its retry
        try {
            clprim::multi_device_sort(data, queues);
        } catch (const clprim::error&) {
            failed = true;
        }
        clprim::detail::scratch_fail_next(0);
        auto copy = data;
        std::sort(copy.begin(), copy.end());
        BOOST_TEST(bit_equal(copy, sorted), "after " << after << ": not a permutation of the input");
        if (!failed) BOOST_TEST(bit_equal(data, sorted), "after " << after << ": no error but not sorted");
        threw += failed;
        threw_sorted += failed && bit_equal(data, sorted);
    }
    BOOST_TEST_MESSAGE("allocation failures: " << threw << " of 40 threw, " << threw_sorted << " of them sorted");
    BOOST_TEST(threw > 0);
    BOOST_TEST(threw_sorted > 0);
}

BOOST_AUTO_TEST_SUITE_END()

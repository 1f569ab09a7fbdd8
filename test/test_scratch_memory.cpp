// Running out of device memory. A temporary that cannot be allocated makes the scratch pool
// release what it keeps and try once more; a second failure is a clprim::error saying how many
// bytes were needed, and the caller's data is as it was. On any device the failures are injected
// (detail::scratch_fail_next) at every allocation of each algorithm in turn, with the pool off so
// that every temporary is a fresh allocation; on a GPU the device's memory is really filled first.
#define BOOST_TEST_MODULE clprim_scratch_memory
#include "sort_test_support.hpp"

#include <clprim/detail/scratch_pool.hpp>

#include <cstdlib>
#include <functional>
#include <numeric>

using namespace clprim_test;
namespace cd = clprim::detail;

namespace {

// CLPRIM_SCRATCH_LIMIT_MB for the scope of a test case.
struct scratch_limit {
    explicit scratch_limit(const char* mb) { setenv("CLPRIM_SCRATCH_LIMIT_MB", mb, 1); }
    ~scratch_limit()
    {
        unsetenv("CLPRIM_SCRATCH_LIMIT_MB");
        cd::scratch_fail_next(0);
    }
};

template <class T>
std::vector<T> read_back(bc::command_queue& q, const bc::vector<T>& v)
{
    std::vector<T> h(v.size());
    q.finish();
    if (!h.empty()) device_under_test::get().queue.enqueue_read_buffer(v.get_buffer(), 0, h.size() * sizeof(T), h.data());
    return h;
}

// One call of an algorithm on fresh device copies of its input (keys; values where it has them),
// and what the result must be.
struct call_case {
    std::string name;
    std::size_t n;
    std::function<void(bc::vector<cl_uint>&, bc::vector<cl_uint>&, bc::command_queue&)> run;
    // Expected contents of keys (and values) afterwards, from the input.
    std::function<void(const std::vector<cl_uint>&, std::vector<cl_uint>&, std::vector<cl_uint>&)> expect;
};

std::vector<cl_uint> sorted_keys(std::vector<cl_uint> v)
{
    std::stable_sort(v.begin(), v.end());
    return v;
}

std::vector<call_case> cases()
{
    using V = bc::vector<cl_uint>;
    std::vector<call_case> c;
    const std::size_t big = (std::size_t(1) << 17) + 3;
    auto sort_expect = [](const std::vector<cl_uint>& in, std::vector<cl_uint>& k, std::vector<cl_uint>&) { k = sorted_keys(in); };
    auto pairs_expect = [](const std::vector<cl_uint>& in, std::vector<cl_uint>& k, std::vector<cl_uint>& v) {
        std::vector<cl_uint> idx(in.size());
        std::iota(idx.begin(), idx.end(), 0u);
        std::stable_sort(idx.begin(), idx.end(), [&](cl_uint a, cl_uint b) { return in[a] < in[b]; });
        k = sorted_keys(in);
        v = idx;
    };
    c.push_back({"radix_sort", big, [](V& k, V&, bc::command_queue& q) { clprim::radix_sort(k.begin(), k.end(), q); }, sort_expect});
    c.push_back({"radix_sort_by_key", big,
                 [](V& k, V& v, bc::command_queue& q) { clprim::radix_sort_by_key(k.begin(), k.end(), v.begin(), q); },
                 pairs_expect});
    c.push_back({"merge_sort_by_key", big,
                 [](V& k, V& v, bc::command_queue& q) { clprim::merge_sort_by_key(k.begin(), k.end(), v.begin(), q); },
                 pairs_expect});
    c.push_back({"odd_even_sort", 5003, [](V& k, V&, bc::command_queue& q) { clprim::odd_even_sort(k.begin(), k.end(), q); },
                 sort_expect});
    for (auto algo : {clprim::scan_algorithm::blelloch, clprim::scan_algorithm::fast})
        c.push_back({"inclusive_scan in place, algorithm " + std::to_string(int(algo)), big,
                     [algo](V& k, V&, bc::command_queue& q) { clprim::inclusive_scan(k.begin(), k.end(), k.begin(), q, algo); },
                     [](const std::vector<cl_uint>& in, std::vector<cl_uint>& k, std::vector<cl_uint>&) {
                         k = in;
                         std::partial_sum(k.begin(), k.end(), k.begin());
                     }});
    c.push_back({"reduce (result in keys[0])", big,
                 [](V& k, V&, bc::command_queue& q) {
                     const cl_uint s = clprim::reduce(k.begin(), k.end(), q);
                     q.enqueue_write_buffer(k.get_buffer(), 0, sizeof s, &s);
                 },
                 [](const std::vector<cl_uint>& in, std::vector<cl_uint>& k, std::vector<cl_uint>&) {
                     k = in;
                     k[0] = std::accumulate(in.begin(), in.end(), 0u);
                 }});
    return c;
}

// Runs c on q with allocation number `after` (and its retry) failing: either the call throws a
// clprim::error naming the bytes and the data is untouched, or (fewer allocations than that) it
// succeeds with the right result. Returns whether it threw.
bool run_with_failure(const call_case& c, bc::command_queue& q, unsigned fails, unsigned after)
{
    auto& iq = device_under_test::get().queue;
    // Buffers kept per queue outside the pool (the look-back scan's status slots) are made afresh,
    // so each call makes every allocation it can make.
    clprim::release_scratch_memory();
    std::vector<cl_uint> keys = make_data<cl_uint>(c.n, distribution::random);
    std::vector<cl_uint> vals(c.n);
    std::iota(vals.begin(), vals.end(), 0u);
    bc::vector<cl_uint> k(keys.begin(), keys.end(), iq), v(vals.begin(), vals.end(), iq);
    iq.finish();
    const std::string what = c.name + " (allocation " + std::to_string(after) + " fails " + std::to_string(fails) + "x)";
    cd::scratch_fail_next(fails, after);
    bool threw = false;
    try {
        c.run(k, v, q);
    } catch (const clprim::error& e) {
        threw = true;
        const std::string msg = e.what();
        BOOST_TEST(msg.find("out of device memory") != std::string::npos, what << ": " << msg);
        BOOST_TEST(msg.find(" bytes") != std::string::npos, what << ": " << msg);
    }
    cd::scratch_fail_next(0);
    std::vector<cl_uint> want_k = keys, want_v = vals;
    if (!threw) c.expect(keys, want_k, want_v);
    BOOST_TEST(first_difference(read_back(q, k), want_k) == -1, what << (threw ? ": keys changed" : ": keys wrong"));
    BOOST_TEST(first_difference(read_back(q, v), want_v) == -1, what << (threw ? ": values changed" : ": values wrong"));
    return threw;
}

bool ooo_supported()
{
    const auto props = device_under_test::get().device.get_info<cl_command_queue_properties>(CL_DEVICE_QUEUE_PROPERTIES);
    return (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(scratch_memory, fixture)

// The lease itself: one failure is absorbed by releasing the pool (whose buffers are gone
// afterwards), two are an error naming the bytes.
BOOST_AUTO_TEST_CASE(lease_retries_after_releasing_the_pool)
{
    scratch_limit limit("64");
    clprim::release_scratch_memory();
    {
        cd::scratch_lease lease(queue);
        (void)lease.buffer(1 << 20);
    }
    BOOST_TEST(cd::scratch_pooled_bytes() >= std::size_t(1 << 20));
    cd::scratch_fail_next(1);
    {
        cd::scratch_lease lease(queue);
        const bc::buffer b = lease.buffer(4 << 20); // a miss: fails, the pool is released, the retry works
        BOOST_TEST(b.size() >= std::size_t(4 << 20));
        BOOST_TEST(cd::scratch_pooled_bytes() == 0u);
    }
    BOOST_TEST(cd::scratch_pooled_bytes() >= std::size_t(4 << 20)); // kept again afterwards
    cd::scratch_fail_next(2);
    {
        cd::scratch_lease lease(queue);
        const std::size_t want = (5 << 20) + 1;
        try {
            (void)lease.buffer(want);
            BOOST_TEST(false, "no error");
        } catch (const cd::out_of_device_memory& e) {
            BOOST_TEST(std::string(e.what()).find(std::to_string(want) + " bytes") != std::string::npos, e.what());
        }
        BOOST_TEST(lease.buffer(want).size() >= want); // the hook is spent: works again
    }
    // Bigger than one buffer may be: a clear error at once.
    {
        cd::scratch_lease lease(queue);
        const auto max_alloc = device.get_info<cl_ulong>(CL_DEVICE_MAX_MEM_ALLOC_SIZE);
        BOOST_CHECK_THROW((void)lease.buffer(std::size_t(max_alloc) + 1), cd::out_of_device_memory);
    }
    clprim::release_scratch_memory();
}

// Every algorithm with temporaries, one injected failure: the retry makes it succeed.
BOOST_AUTO_TEST_CASE(one_failure_is_retried)
{
    scratch_limit limit("64");
    for (const auto& c : cases()) {
        clprim::release_scratch_memory();
        BOOST_TEST(!run_with_failure(c, queue, 1, 0), c.name << " threw");
    }
}

// Every allocation of every algorithm in turn fails twice (the pool off: each temporary is a fresh
// allocation): the call throws with the caller's data untouched, or had fewer allocations and
// succeeds. Also on an out-of-order queue, after which the queue still works.
BOOST_AUTO_TEST_CASE(failure_at_each_allocation_leaves_data_intact)
{
    scratch_limit limit("0");
    std::vector<bc::command_queue*> queues{&queue};
    bc::command_queue ooo;
    if (ooo_supported()) {
        ooo = bc::command_queue(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
        queues.push_back(&ooo);
    }
    for (auto* q : queues)
        for (const auto& c : cases()) {
            unsigned after = 0;
            while (after < 40 && run_with_failure(c, *q, 2, after)) ++after;
            BOOST_TEST_MESSAGE(c.name << ": " << after << " allocations");
            BOOST_TEST((after > 0 && after < 40), c.name << ": " << after << " allocations");
        }
}

// GPU only: fill the device's memory with buffers (touched, so that they are really allocated),
// keeping the pool warm with a smaller sort's temporaries, then sort a large range. The sort must
// either succeed (the pool's release left enough) or throw clprim::error with the data intact;
// once the memory is given back, the same sort must work.
BOOST_AUTO_TEST_CASE(sort_with_device_memory_nearly_full)
{
    if (!on_gpu()) {
        BOOST_TEST_MESSAGE("not a GPU: case skipped");
        return;
    }
    clprim::release_scratch_memory();
    const std::size_t n = std::size_t(1) << 26; // 256 MiB of keys, 256 MiB of values
    std::vector<cl_uint> keys = make_data<cl_uint>(n, distribution::random);
    std::vector<cl_uint> vals(n);
    std::iota(vals.begin(), vals.end(), 0u);
    bc::vector<cl_uint> k(keys.begin(), keys.end(), queue), v(vals.begin(), vals.end(), queue);
    {
        bc::vector<cl_uint> warm(keys.begin(), keys.begin() + n / 4, queue);
        clprim::radix_sort(warm.begin(), warm.end(), queue); // the pool now keeps 2 x 64 MiB
    }
    queue.finish();
    const std::size_t pooled = cd::scratch_pooled_bytes();
    std::vector<bc::buffer> hog;
    std::size_t held = 0;
    const unsigned char byte = 1;
    for (std::size_t chunk : {std::size_t(1) << 30, std::size_t(64) << 20}) {
        for (std::size_t tries = device.global_memory_size() / chunk + 2; tries > 0; --tries) {
            try {
                bc::buffer b(context, chunk);
                queue.enqueue_write_buffer(b, chunk - 1, 1, &byte); // touch: allocated now
                hog.push_back(b);
                held += chunk;
            } catch (const bc::opencl_error&) {
                break;
            }
        }
    }
    BOOST_TEST_MESSAGE("device memory " << (device.global_memory_size() >> 20) << " MiB; held " << (held >> 20)
                                        << " MiB in " << hog.size() << " buffers; pool " << (pooled >> 20) << " MiB");
    bool threw = false;
    try {
        clprim::radix_sort_by_key(k.begin(), k.end(), v.begin(), queue);
        queue.finish();
    } catch (const clprim::error& e) {
        threw = true;
        BOOST_TEST_MESSAGE("nearly full: " << e.what());
        BOOST_TEST(std::string(e.what()).find("bytes") != std::string::npos, e.what());
    }
    if (!threw) BOOST_TEST_MESSAGE("nearly full: the sort succeeded");
    std::vector<cl_uint> want_k = keys, want_v = vals;
    if (!threw) {
        std::vector<cl_uint> idx(n);
        std::iota(idx.begin(), idx.end(), 0u);
        std::stable_sort(idx.begin(), idx.end(), [&](cl_uint a, cl_uint b) { return keys[a] < keys[b]; });
        want_k = sorted_keys(keys);
        want_v = idx;
    }
    hog.clear();
    BOOST_TEST(first_difference(read_back(queue, k), want_k) == -1, (threw ? "keys changed" : "keys wrong"));
    BOOST_TEST(first_difference(read_back(queue, v), want_v) == -1, (threw ? "values changed" : "values wrong"));
    if (threw) {
        clprim::radix_sort_by_key(k.begin(), k.end(), v.begin(), queue); // memory back: it works
        BOOST_TEST(first_difference(read_back(queue, k), sorted_keys(keys)) == -1, "keys wrong after the memory came back");
    }
    clprim::release_scratch_memory();
}

BOOST_AUTO_TEST_SUITE_END()

// The by-key family's CPU path (CLPRIM_BY_KEY_PATH=chunks) forced on every device, in one launch
// (primitives/by_key_cpu_single.cl: pieces chained by a look-back, waiting or taking the decoupled
// fallback) and in two (by_key_cpu.cl): many small pieces or chunks (CLPRIM_BY_KEY_PIECE,
// CLPRIM_BY_KEY_CHUNKS) so that runs, heads and the kinds of a partition cross their boundaries
// and the 16-element blocks of the AVX-512 loops, with those blocks on and off
// (CLPRIM_BY_KEY_OPTIONS=-DBKC_SCALAR=1); reduce_by_key (sums of every 4-byte integer type, float
// sums and 64-bit keys on the scalar loops, an operator), run_length_encode, unique (floats by
// their bits), partition_copy, stable_partition and the scans by key (in place too) against host
// references; results with guards; results too small (the guarded epilogue); sub-ranges on an
// out-of-order queue.
#define BOOST_TEST_MODULE clprim_by_key_cpu
#include "by_key_test_support.hpp"

#include <boost/compute/function.hpp>

using namespace clprim_test;

namespace {

BOOST_COMPUTE_FUNCTION(bool, cpu_odd, (cl_uint x), { return (x & 1u) != 0; });
BOOST_COMPUTE_FUNCTION(bool, cpu_never, (cl_uint x), { return x == 0xdeadbeefu && x != 0xdeadbeefu; });

// Shapes of the chunks path: one launch (CLPRIM_BY_KEY_CPU=one, by_key_cpu_single.cl) with pieces
// of `chunks` elements, or two (count, emit) with CLPRIM_BY_KEY_CHUNKS=(min_chunk, chunks_per_cu);
// the AVX-512 blocks on or off; the single pass's look-back waiting or taking the decoupled
// fallback first (CLPRIM_LOOKBACK=fallback).
struct cpu_shape {
    const char* cpu;
    const char* chunks;
    const char* options;
    const char* lookback;
};
const std::vector<cpu_shape>& cpu_shapes()
{
    static const std::vector<cpu_shape> s{{"two", "4096,4", "", ""},
                                          {"two", "16,8", "", ""},
                                          {"two", "37,8", "", ""},
                                          {"two", "16,8", "-DBKC_SCALAR=1", ""},
                                          {"two", "37,8", "-DBKC_SCALAR=1", ""},
                                          {"one", "16384", "", ""},
                                          {"one", "16", "", ""},
                                          {"one", "37", "", "fallback"},
                                          {"one", "100", "", ""},
                                          {"one", "16", "-DBKC_SCALAR=1", "fallback"},
                                          {"one", "37", "-DBKC_SCALAR=1", ""}};
    return s;
}

// Sets a shape's knobs for the scope.
struct shape_scope {
    env_override cpu, chunks, piece, options, lookback;
    explicit shape_scope(const cpu_shape& sh)
        : cpu("CLPRIM_BY_KEY_CPU", sh.cpu), chunks("CLPRIM_BY_KEY_CHUNKS", std::string(sh.cpu) == "two" ? sh.chunks : "4096,4"),
          piece("CLPRIM_BY_KEY_PIECE", std::string(sh.cpu) == "one" ? sh.chunks : "16384"),
          options("CLPRIM_BY_KEY_OPTIONS", sh.options), lookback("CLPRIM_LOOKBACK", sh.lookback)
    {
    }
    static std::string name(const cpu_shape& sh)
    {
        return std::string(sh.cpu) + " " + sh.chunks + " " + sh.options + " " + sh.lookback + " ";
    }
};

const std::vector<std::size_t>& cpu_sizes()
{
    static const std::vector<std::size_t> s{1, 2, 15, 16, 17, 32, 33, 47, 100, 257, 1000, 4097, 40009};
    return s;
}

// Runs of 1..15, of 1, of 14..40 (across the 16-element blocks), and one run.
const std::vector<run_shape>& cpu_runs()
{
    static const std::vector<run_shape> s{{1, 15, "runs of 1-15"},
                                          {1, 1, "runs of 1"},
                                          {14, 40, "runs of 14-40"},
                                          {std::size_t(1) << 40, std::size_t(1) << 40, "one run"}};
    return s;
}

template <class K>
std::vector<K> keys_for(std::size_t n, const run_shape& r)
{
    const std::size_t m = std::max<std::size_t>(n, 1);
    return run_keys<K>(n, std::min(r.min_run, m), std::min(r.max_run, m));
}

template <class K, class V>
void check_reduce(bc::command_queue& queue, const std::vector<K>& keys, const std::vector<V>& vals, const std::string& label)
{
    std::vector<K> ek;
    std::vector<V> ev;
    const std::size_t expected = host_reduce_by_key(keys, vals, add_wrap<V>, ek, ev);
    const std::size_t n = keys.size();
    auto dk = to_device(keys, queue);
    auto dv = to_device(vals, queue);
    bc::vector<K> ok = to_device(std::vector<K>(n + 2, K(55)), queue);
    bc::vector<V> ov = to_device(std::vector<V>(n + 2, V(66)), queue);
    const std::size_t count = clprim::reduce_by_key(dk.begin(), dk.end(), dv.begin(), ok.begin() + 1, ov.begin() + 1, queue);
    BOOST_TEST(count == expected, label);
    const auto hk = to_host(ok, queue);
    const auto hv = to_host(ov, queue);
    const std::size_t c = std::min(count, n);
    BOOST_TEST(bit_equal(std::vector<K>(hk.begin() + 1, hk.begin() + 1 + c), ek), label << ": keys");
    BOOST_TEST(bit_equal(std::vector<V>(hv.begin() + 1, hv.begin() + 1 + c), ev), label << ": values");
    bool guards = hk.front() == K(55) && hv.front() == V(66);
    for (std::size_t i = 1 + c; i < n + 2; ++i) guards = guards && hk[i] == K(55) && hv[i] == V(66);
    BOOST_TEST(guards, label << ": wrote outside the results");
    bc::vector<cl_ulong> dc = to_device(std::vector<cl_ulong>{9, 9, 9}, queue);
    clprim::reduce_by_key(dk.begin(), dk.end(), dv.begin(), ok.begin() + 1, ov.begin() + 1, dc.begin() + 1, queue);
    const auto hc = to_host(dc, queue);
    BOOST_TEST((hc[0] == 9 && hc[1] == expected && hc[2] == 9), label << ": count_result " << hc[1]);
}

template <class T>
void check_unique_rle(bc::command_queue& queue, const std::vector<T>& data, const std::string& label)
{
    const std::size_t n = data.size();
    std::vector<T> ek;
    std::vector<cl_uint> ec;
    host_reduce_by_key(data, std::vector<cl_uint>(n, 1u), add_wrap<cl_uint>, ek, ec);
    auto d = to_device(data, queue);
    bc::vector<T> out = to_device(std::vector<T>(n + 2, T(42)), queue);
    const std::size_t u = clprim::unique(d.begin(), d.end(), out.begin() + 1, queue);
    BOOST_TEST(u == ek.size(), label << " unique");
    auto h = to_host(out, queue);
    BOOST_TEST(bit_equal(std::vector<T>(h.begin() + 1, h.begin() + 1 + std::min(u, n)), ek), label << " unique");
    bool guards = same_bits(h.front(), T(42));
    for (std::size_t i = 1 + std::min(u, n); i < n + 2; ++i) guards = guards && same_bits(h[i], T(42));
    BOOST_TEST(guards, label << " unique: wrote outside the result");
    bc::vector<T> out2 = to_device(std::vector<T>(n + 2, T(42)), queue);
    bc::vector<cl_uint> counts = to_device(std::vector<cl_uint>(n + 2, 7u), queue);
    const std::size_t r = clprim::run_length_encode(d.begin(), d.end(), out2.begin() + 1, counts.begin() + 1, queue);
    BOOST_TEST(r == ek.size(), label << " rle");
    h = to_host(out2, queue);
    const auto hn = to_host(counts, queue);
    const std::size_t c = std::min(r, n);
    BOOST_TEST(bit_equal(std::vector<T>(h.begin() + 1, h.begin() + 1 + c), ek), label << " rle keys");
    BOOST_TEST(bit_equal(std::vector<cl_uint>(hn.begin() + 1, hn.begin() + 1 + c), ec), label << " rle lengths");
    guards = hn.front() == 7u && hn[1 + c] == 7u && same_bits(h[1 + c], T(42));
    BOOST_TEST(guards, label << " rle: wrote outside the results");
}

// partition_copy and stable_partition by pred (host twin hpred).
template <class Pred, class HostPred>
void check_partition(bc::command_queue& queue, const std::vector<cl_uint>& data, Pred pred, HostPred hpred,
                     const std::string& label)
{
    const std::size_t n = data.size();
    std::vector<cl_uint> yes, no;
    for (cl_uint x : data) (hpred(x) ? yes : no).push_back(x);
    auto d = to_device(data, queue);
    bc::vector<cl_uint> o1 = to_device(std::vector<cl_uint>(n + 2, 3u), queue);
    bc::vector<cl_uint> o2 = to_device(std::vector<cl_uint>(n + 2, 4u), queue);
    const std::size_t k = clprim::partition_copy(d.begin(), d.end(), o1.begin() + 1, o2.begin() + 1, queue, pred);
    BOOST_TEST(k == yes.size(), label << " partition_copy");
    const auto h1 = to_host(o1, queue), h2 = to_host(o2, queue);
    BOOST_TEST(bit_equal(std::vector<cl_uint>(h1.begin() + 1, h1.begin() + 1 + yes.size()), yes), label << " kept");
    BOOST_TEST(bit_equal(std::vector<cl_uint>(h2.begin() + 1, h2.begin() + 1 + no.size()), no), label << " others");
    BOOST_TEST((h1.front() == 3u && h1[1 + yes.size()] == 3u && h2.front() == 4u && h2[1 + no.size()] == 4u),
               label << " partition_copy: wrote outside the results");
    // stable_partition in place, inside guards.
    std::vector<cl_uint> framed(n + 2, 6u);
    std::copy(data.begin(), data.end(), framed.begin() + 1);
    auto f = to_device(framed, queue);
    const std::size_t sk = clprim::stable_partition(f.begin() + 1, f.begin() + 1 + n, queue, pred);
    BOOST_TEST(sk == yes.size(), label << " stable_partition");
    std::vector<cl_uint> expect(framed.size(), 6u);
    std::copy(yes.begin(), yes.end(), expect.begin() + 1);
    std::copy(no.begin(), no.end(), expect.begin() + 1 + yes.size());
    BOOST_TEST(bit_equal(to_host(f, queue), expect), label << " stable_partition");
}

template <class K, class V>
void check_scans(bc::command_queue& queue, const std::vector<K>& keys, const std::vector<V>& vals, const std::string& label)
{
    const std::size_t n = keys.size();
    auto dk = to_device(keys, queue);
    auto dv = to_device(vals, queue);
    for (int inclusive = 0; inclusive < 2; ++inclusive) {
        bc::vector<V> out = to_device(std::vector<V>(n + 2, V(77)), queue);
        if (inclusive) clprim::inclusive_scan_by_key(dk.begin(), dk.end(), dv.begin(), out.begin() + 1, queue);
        else clprim::exclusive_scan_by_key(dk.begin(), dk.end(), dv.begin(), out.begin() + 1, queue, V(5));
        const auto h = to_host(out, queue);
        const auto e = host_scan_by_key(keys, vals, add_wrap<V>, inclusive != 0, V(5));
        BOOST_TEST(bit_equal(std::vector<V>(h.begin() + 1, h.end() - 1), e), label << (inclusive ? " inclusive" : " exclusive"));
        BOOST_TEST((h.front() == V(77) && h.back() == V(77)), label << " scan: wrote outside the result");
        // in place, over the values inside guards
        std::vector<V> framed(n + 2, V(88));
        std::copy(vals.begin(), vals.end(), framed.begin() + 1);
        bc::vector<V> io = to_device(framed, queue);
        if (inclusive) clprim::inclusive_scan_by_key(dk.begin(), dk.end(), io.begin() + 1, io.begin() + 1, queue);
        else clprim::exclusive_scan_by_key(dk.begin(), dk.end(), io.begin() + 1, io.begin() + 1, queue, V(5));
        const auto hi = to_host(io, queue);
        BOOST_TEST(bit_equal(std::vector<V>(hi.begin() + 1, hi.end() - 1), e),
                   label << (inclusive ? " inclusive" : " exclusive") << " in place");
        BOOST_TEST((hi.front() == V(88) && hi.back() == V(88)), label << " scan in place: wrote outside the values");
    }
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(by_key_cpu, fixture)

BOOST_AUTO_TEST_CASE(reduce_unique_rle_across_chunks_and_blocks)
{
    env_override path("CLPRIM_BY_KEY_PATH", "chunks");
    env_override unique_path("CLPRIM_UNIQUE_PATH", "by_key");
    for (const auto& sh : cpu_shapes()) {
        shape_scope knobs(sh);
        const std::string shape = shape_scope::name(sh);
        for (std::size_t n : cpu_sizes())
            for (const auto& r : cpu_runs()) {
                const std::string label = shape + r.name + " n=" + std::to_string(n);
                const auto ku = keys_for<cl_uint>(n, r);
                check_reduce<cl_uint, cl_uint>(queue, ku, small_values<cl_uint>(n), label + " uint->uint");
                check_unique_rle(queue, ku, label + " uint");
                if (n > 4097) continue; // (the other types at the smaller sizes)
                std::vector<cl_int> big(n); // sums that wrap in 32 bits
                for (std::size_t i = 0; i < n; ++i) big[i] = cl_int(0x7ff00000 + 977 * i);
                check_reduce<cl_uint, cl_int>(queue, ku, big, label + " uint->int (wrapping)");
                const auto kf = keys_for<cl_float>(n, r);
                check_reduce<cl_float, cl_uint>(queue, kf, small_values<cl_uint>(n), label + " float->uint");
                check_unique_rle(queue, kf, label + " float");
                check_reduce<cl_uint, cl_float>(queue, ku, small_values<cl_float>(n), label + " uint->float");
                const auto kl = keys_for<cl_ulong>(n, r);
                check_reduce<cl_ulong, cl_uint>(queue, kl, small_values<cl_uint>(n), label + " ulong->uint");
                check_unique_rle(queue, kl, label + " ulong");
                check_scans<cl_uint, cl_uint>(queue, ku, small_values<cl_uint>(n), label + " uint->uint");
            }
    }
}

BOOST_AUTO_TEST_CASE(operator_on_the_scalar_loops)
{
    env_override path("CLPRIM_BY_KEY_PATH", "chunks");
    env_override chunks("CLPRIM_BY_KEY_CHUNKS", "16,8");
    env_override piece("CLPRIM_BY_KEY_PIECE", "16");
    for (const char* cpu : {"one", "two"}) {
        env_override launches("CLPRIM_BY_KEY_CPU", cpu);
        for (std::size_t n : {1, 33, 1000, 4097}) {
            const auto keys = run_keys<cl_uint>(n, 1, 15);
            const auto vals = small_values<cl_uint>(n);
            std::vector<cl_uint> ek, ev;
            const std::size_t expected =
                host_reduce_by_key(keys, vals, [](cl_uint a, cl_uint b) { return std::max(a, b); }, ek, ev);
            auto dk = to_device(keys, queue);
            auto dv = to_device(vals, queue);
            bc::vector<cl_uint> ok(n, context), ov(n, context);
            const std::size_t count = clprim::reduce_by_key(dk.begin(), dk.end(), dv.begin(), ok.begin(), ov.begin(), queue,
                                                            bc::max<cl_uint>(), 0u);
            BOOST_TEST(count == expected);
            const auto hk = to_host(ok, queue), hv = to_host(ov, queue);
            BOOST_TEST(bit_equal(std::vector<cl_uint>(hk.begin(), hk.begin() + count), ek), cpu << " max n=" << n);
            BOOST_TEST(bit_equal(std::vector<cl_uint>(hv.begin(), hv.begin() + count), ev), cpu << " max n=" << n);
        }
    }
}

BOOST_AUTO_TEST_CASE(partition_across_chunks)
{
    env_override path("CLPRIM_BY_KEY_PATH", "chunks");
    env_override partition_path("CLPRIM_PARTITION_PATH", "by_key");
    for (const auto& sh : cpu_shapes()) {
        shape_scope knobs(sh);
        for (std::size_t n : cpu_sizes()) {
            const std::string label = shape_scope::name(sh) + "n=" + std::to_string(n);
            std::mt19937 gen{static_cast<unsigned>(n)};
            std::vector<cl_uint> random(n), even_first(n), blocks(n);
            for (auto& x : random) x = gen();
            for (std::size_t i = 0; i < n; ++i) even_first[i] = cl_uint(2 * i + (i >= n / 2 ? 1 : 0)); // element 0 not kept
            for (std::size_t i = 0; i < n; ++i) blocks[i] = cl_uint((i / 23) % 2 ? 2 * i + 1 : 2 * i);   // kinds in runs of 23
            auto odd = [](cl_uint x) { return (x & 1u) != 0; };
            check_partition(queue, random, cpu_odd, odd, label + " random");
            check_partition(queue, even_first, cpu_odd, odd, label + " others first");
            check_partition(queue, blocks, cpu_odd, odd, label + " runs of 23");
            check_partition(queue, random, cpu_never, [](cl_uint) { return false; }, label + " none kept");
        }
    }
}

// Result ranges too small for the count: the guarded epilogue (by_key.cl) writes what fits,
// nothing past the range, and the call throws. Two launches: every chunk takes it; one launch:
// the pieces from the first whose results no longer fit (the pieces before it write theirs by
// the compaction).
BOOST_AUTO_TEST_CASE(results_too_small)
{
    env_override path("CLPRIM_BY_KEY_PATH", "chunks");
    env_override chunks("CLPRIM_BY_KEY_CHUNKS", "16,8");
    env_override unique_path("CLPRIM_UNIQUE_PATH", "by_key");
    env_override partition_path("CLPRIM_PARTITION_PATH", "by_key");
    const std::size_t n = 1000;
    const auto keys = run_keys<cl_uint>(n, 1, 3);
    const auto vals = small_values<cl_uint>(n);
    std::vector<cl_uint> ek, ev;
    host_reduce_by_key(keys, vals, add_wrap<cl_uint>, ek, ev);
    std::vector<cl_uint> yes, no;
    for (cl_uint x : vals) (x & 1u ? yes : no).push_back(x);
    auto dk = to_device(keys, queue);
    auto dv = to_device(vals, queue);
    const std::size_t room = ek.size() / 2, kept_room = yes.size() / 2 + 1;
    for (const char* cpu : {"two", "one"})
        for (const char* piece : {"16", "37", "16384"}) {
            env_override launches("CLPRIM_BY_KEY_CPU", cpu);
            env_override pieces("CLPRIM_BY_KEY_PIECE", piece);
            const std::string label = std::string(cpu) + " " + piece;
            bc::vector<cl_uint> ok = to_device(std::vector<cl_uint>(room + 1, 1u), queue);
            bc::vector<cl_uint> ov = to_device(std::vector<cl_uint>(room + 1, 2u), queue);
            BOOST_CHECK_THROW(clprim::reduce_by_key(dk.begin(), dk.end(), dv.begin(), ok.begin(), ov.begin(), queue),
                              clprim::invalid_argument_error);
            // (the iterators' room is the buffer's: room + 1 elements)
            const auto hk = to_host(ok, queue), hv = to_host(ov, queue);
            BOOST_TEST(bit_equal(hk, std::vector<cl_uint>(ek.begin(), ek.begin() + room + 1)), label);
            BOOST_TEST(bit_equal(hv, std::vector<cl_uint>(ev.begin(), ev.begin() + room + 1)), label);
            bc::vector<cl_uint> ou = to_device(std::vector<cl_uint>(room + 1, 1u), queue);
            BOOST_CHECK_THROW(clprim::unique(dk.begin(), dk.end(), ou.begin(), queue), clprim::invalid_argument_error);
            BOOST_TEST(bit_equal(to_host(ou, queue), std::vector<cl_uint>(ek.begin(), ek.begin() + room + 1)), label);
            // partition_copy, the kept range too small: the first kept_room kept elements, every other one
            bc::vector<cl_uint> o1 = to_device(std::vector<cl_uint>(kept_room, 5u), queue), o2(n, context);
            BOOST_CHECK_THROW(clprim::partition_copy(dv.begin(), dv.end(), o1.begin(), o2.begin(), queue, cpu_odd),
                              clprim::invalid_argument_error);
            BOOST_TEST(bit_equal(to_host(o1, queue), std::vector<cl_uint>(yes.begin(), yes.begin() + kept_room)), label);
            const auto h2 = to_host(o2, queue);
            BOOST_TEST(bit_equal(std::vector<cl_uint>(h2.begin(), h2.begin() + no.size()), no), label);
        }
}

BOOST_AUTO_TEST_CASE(sub_ranges_out_of_order_queue)
{
    env_override path("CLPRIM_BY_KEY_PATH", "chunks");
    env_override chunks("CLPRIM_BY_KEY_CHUNKS", "37,8");
    env_override piece("CLPRIM_BY_KEY_PIECE", "37");
    env_override unique_path("CLPRIM_UNIQUE_PATH", "by_key");
    for (const char* cpu : {"two", "one"}) {
        env_override launches("CLPRIM_BY_KEY_CPU", cpu);
        bc::command_queue ooo(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
        const std::size_t n = 3001, off = 5;
        const auto all_keys = run_keys<cl_uint>(n + 2 * off, 1, 20);
        const auto all_vals = small_values<cl_uint>(n + 2 * off);
        const std::vector<cl_uint> keys(all_keys.begin() + off, all_keys.end() - off), vals(all_vals.begin() + off, all_vals.end() - off);
        std::vector<cl_uint> ek, ev;
        const std::size_t expected = host_reduce_by_key(keys, vals, add_wrap<cl_uint>, ek, ev);
        auto dk = to_device(all_keys, queue);
        auto dv = to_device(all_vals, queue);
        bc::vector<cl_uint> ok = to_device(std::vector<cl_uint>(n + 10, 1u), queue), ov = to_device(std::vector<cl_uint>(n + 10, 2u), queue);
        const std::size_t count =
            clprim::reduce_by_key(dk.begin() + off, dk.end() - off, dv.begin() + off, ok.begin() + 3, ov.begin() + 3, ooo);
        BOOST_TEST(count == expected);
        const auto hk = to_host(ok, queue), hv = to_host(ov, queue);
        BOOST_TEST(bit_equal(std::vector<cl_uint>(hk.begin() + 3, hk.begin() + 3 + count), ek));
        BOOST_TEST(bit_equal(std::vector<cl_uint>(hv.begin() + 3, hv.begin() + 3 + count), ev));
        BOOST_TEST((hk[2] == 1u && hk[3 + count] == 1u && hv[2] == 2u && hv[3 + count] == 2u));
        std::vector<cl_uint> eu;
        for (std::size_t i = 0; i < n; ++i)
            if (i == 0 || keys[i] != keys[i - 1]) eu.push_back(keys[i]);
        bc::vector<cl_uint> ou = to_device(std::vector<cl_uint>(n + 10, 1u), queue);
        const std::size_t u = clprim::unique(dk.begin() + off, dk.end() - off, ou.begin() + 3, ooo);
        const auto hu = to_host(ou, queue);
        BOOST_TEST(u == eu.size());
        BOOST_TEST(bit_equal(std::vector<cl_uint>(hu.begin() + 3, hu.begin() + 3 + u), eu));
        BOOST_TEST((hu[2] == 1u && hu[3 + u] == 1u));
    }
}

BOOST_AUTO_TEST_SUITE_END()

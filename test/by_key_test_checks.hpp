#pragma once
// Shared by test_by_key.cpp, test_by_key_small.cpp and test_selection.cpp: reduce_by_key, the scans
// by key, unique and run_length_encode against the host references, results with guards, the count
// overloads, sub-ranges on an out-of-order queue.
#include "by_key_test_support.hpp"

namespace clprim_test {

// reduce_by_key through op (op_tag: 0 sum, 1 max, 2 affine), results with guards on both sides,
// the count overload beside it.
template <class K, class V, class DevOp, class HostOp>
void check_reduce(bc::command_queue& queue, const std::vector<K>& keys, const std::vector<V>& vals, bool sum,
                  DevOp dop, HostOp hop, V identity, const std::string& label)
{
    std::vector<K> ek;
    std::vector<V> ev;
    const std::size_t expected = host_reduce_by_key(keys, vals, hop, ek, ev);
    const std::size_t n = keys.size();
    auto dk = to_device(keys, queue);
    auto dv = to_device(vals, queue);
    const K kguard = K(55);
    const V vguard = V(66);
    bc::vector<K> ok = to_device(std::vector<K>(n + 2, kguard), queue);
    bc::vector<V> ov = to_device(std::vector<V>(n + 2, vguard), queue);
    std::size_t count;
    if (sum) count = clprim::reduce_by_key(dk.begin(), dk.end(), dv.begin(), ok.begin() + 1, ov.begin() + 1, queue);
    else count = clprim::reduce_by_key(dk.begin(), dk.end(), dv.begin(), ok.begin() + 1, ov.begin() + 1, queue, dop, identity);
    BOOST_TEST(count == expected, label << " n=" << n);
    const auto hk = to_host(ok, queue);
    const auto hv = to_host(ov, queue);
    std::vector<K> gk(hk.begin() + 1, hk.begin() + 1 + std::min(count, n));
    std::vector<V> gv(hv.begin() + 1, hv.begin() + 1 + std::min(count, n));
    BOOST_TEST(bit_equal(gk, ek), label << " n=" << n << ": keys differ at " << first_difference(gk, ek));
    BOOST_TEST(bit_equal(gv, ev), label << " n=" << n << ": values differ at " << first_difference(gv, ev));
    bool guards = hk.front() == kguard && hv.front() == vguard;
    for (std::size_t i = 1 + count; i < n + 2; ++i) guards = guards && hk[i] == kguard && hv[i] == vguard;
    BOOST_TEST(guards, label << " n=" << n << ": wrote outside the results");

    // count_result overload: the count on the device.
    bc::vector<cl_ulong> c = to_device(std::vector<cl_ulong>{99, 12345, 99}, queue);
    if (sum) clprim::reduce_by_key(dk.begin(), dk.end(), dv.begin(), ok.begin() + 1, ov.begin() + 1, c.begin() + 1, queue);
    else clprim::reduce_by_key(dk.begin(), dk.end(), dv.begin(), ok.begin() + 1, ov.begin() + 1, c.begin() + 1, queue, dop, identity);
    const auto hc = to_host(c, queue);
    BOOST_TEST((hc[0] == 99 && hc[1] == expected && hc[2] == 99), label << " n=" << n << ": count_result " << hc[1]);
    const auto hv2 = to_host(ov, queue);
    std::vector<V> gv2(hv2.begin() + 1, hv2.begin() + 1 + std::min(count, n));
    BOOST_TEST(bit_equal(gv2, ev), label << " n=" << n << ": count overload values differ at " << first_difference(gv2, ev));
}

// Both scans by key (sum, or the operator), into a result with guards and in place.
template <class K, class V, class DevOp, class HostOp>
void check_scans_with(bc::command_queue& queue, const std::vector<K>& keys, const std::vector<V>& vals, bool sum, DevOp dop,
                 HostOp hop, V identity, V init, const std::string& label)
{
    const std::size_t n = keys.size();
    auto dk = to_device(keys, queue);
    for (int inclusive = 0; inclusive < 2; ++inclusive)
        for (int in_place = 0; in_place < 2; ++in_place) {
            const auto expected = host_scan_by_key(keys, vals, hop, inclusive != 0, init);
            bc::vector<V> dv = to_device(vals, queue);
            const V guard = V(77);
            bc::vector<V> out = to_device(std::vector<V>(n + 2, guard), queue);
            auto res = in_place ? dv.begin() : out.begin() + 1;
            if (sum) {
                if (inclusive) clprim::inclusive_scan_by_key(dk.begin(), dk.end(), dv.begin(), res, queue);
                else clprim::exclusive_scan_by_key(dk.begin(), dk.end(), dv.begin(), res, queue, init);
            } else {
                if (inclusive) clprim::inclusive_scan_by_key(dk.begin(), dk.end(), dv.begin(), res, queue, dop, identity);
                else clprim::exclusive_scan_by_key(dk.begin(), dk.end(), dv.begin(), res, queue, init, dop, identity);
            }
            std::vector<V> got;
            if (in_place) {
                got = to_host(dv, queue);
            } else {
                const auto h = to_host(out, queue);
                got.assign(h.begin() + 1, h.end() - 1);
                BOOST_TEST((same_bits(h.front(), guard) && same_bits(h.back(), guard)), label << " n=" << n << ": wrote outside");
            }
            BOOST_TEST(bit_equal(got, expected), label << (inclusive ? " inclusive" : " exclusive") << (in_place ? " in place" : "")
                                                       << " n=" << n << ": first difference at " << first_difference(got, expected));
        }
}

// reduce_by_key, an in-place inclusive scan by key and the count overload on sub-ranges of
// larger buffers (keys, values and results at offsets), enqueued on ooo (an out-of-order queue).
inline void check_sub_ranges(bc::command_queue& queue, bc::command_queue& ooo, std::size_t n)
{
    const bc::context context = queue.get_context();
    const std::size_t off = 7;
    auto all_keys = run_keys<cl_uint>(n + 2 * off, 1, 15);
    auto all_vals = small_values<cl_uint>(n + 2 * off);
    std::vector<cl_uint> keys(all_keys.begin() + off, all_keys.end() - off);
    std::vector<cl_uint> vals(all_vals.begin() + off, all_vals.end() - off);
    std::vector<cl_uint> ek, ev;
    const std::size_t expected = host_reduce_by_key(keys, vals, add_wrap<cl_uint>, ek, ev);
    auto dk = to_device(all_keys, queue);
    auto dv = to_device(all_vals, queue);
    bc::vector<cl_uint> ok = to_device(std::vector<cl_uint>(n + 20, 1u), queue);
    bc::vector<cl_uint> ov = to_device(std::vector<cl_uint>(n + 20, 2u), queue);
    const std::size_t count = clprim::reduce_by_key(dk.begin() + off, dk.end() - off, dv.begin() + off, ok.begin() + 3,
                                                    ov.begin() + 3, ooo);
    BOOST_TEST(count == expected);
    const auto hk = to_host(ok, queue), hv = to_host(ov, queue);
    BOOST_TEST(bit_equal(std::vector<cl_uint>(hk.begin() + 3, hk.begin() + 3 + count), ek));
    BOOST_TEST(bit_equal(std::vector<cl_uint>(hv.begin() + 3, hv.begin() + 3 + count), ev));
    BOOST_TEST((hk[2] == 1u && hk[3 + count] == 1u && hv[2] == 2u && hv[3 + count] == 2u));
    // Scan of a sub-range in place, on the out-of-order queue, then the count overload.
    clprim::inclusive_scan_by_key(dk.begin() + off, dk.end() - off, dv.begin() + off, dv.begin() + off, ooo);
    ooo.finish();
    const auto hs = to_host(dv, queue);
    const auto es = host_scan_by_key(keys, vals, add_wrap<cl_uint>, true, 0u);
    BOOST_TEST(bit_equal(std::vector<cl_uint>(hs.begin() + off, hs.end() - off), es));
    BOOST_TEST((hs[off - 1] == all_vals[off - 1] && hs[n + off] == all_vals[n + off]));
    bc::vector<cl_ulong> c(1, context);
    clprim::reduce_by_key(dk.begin() + off, dk.end() - off, dk.begin() + off, ok.begin(), ov.begin(), c.begin(), ooo);
    ooo.finish();
    BOOST_TEST(to_host(c, queue)[0] == expected);
}

// unique and (rle) run_length_encode of data, results with guards, their count overloads.
template <class T>
void check_unique_rle(bc::command_queue& queue, const std::vector<T>& data, const std::string& label, bool rle = true)
{
    const std::size_t n = data.size();
    std::vector<T> ek;
    std::vector<cl_uint> ec;
    host_reduce_by_key(data, std::vector<cl_uint>(n, 1u), add_wrap<cl_uint>, ek, ec);
    auto d = to_device(data, queue);
    const T guard = T(42);
    bc::vector<T> out = to_device(std::vector<T>(n + 2, guard), queue);
    bc::vector<cl_uint> counts = to_device(std::vector<cl_uint>(n + 2, 7u), queue);
    bc::vector<cl_ulong> c = to_device(std::vector<cl_ulong>{5, 5, 5}, queue);

    const std::size_t u = clprim::unique(d.begin(), d.end(), out.begin() + 1, queue);
    BOOST_TEST(u == ek.size(), label << " unique n=" << n);
    auto h = to_host(out, queue);
    std::vector<T> got(h.begin() + 1, h.begin() + 1 + std::min(u, n));
    BOOST_TEST(bit_equal(got, ek), label << " unique n=" << n << ": first difference at " << first_difference(got, ek));
    bool guards = h.front() == guard;
    for (std::size_t i = 1 + u; i < h.size(); ++i) guards = guards && same_bits(h[i], guard);
    BOOST_TEST(guards, label << " unique n=" << n << ": wrote outside the result");
    clprim::unique(d.begin(), d.end(), out.begin() + 1, c.begin() + 1, queue);
    auto hc = to_host(c, queue);
    BOOST_TEST((hc[0] == 5 && hc[1] == ek.size() && hc[2] == 5), label << " unique count_result " << hc[1]);
    if (!rle) return;

    bc::vector<T> out2 = to_device(std::vector<T>(n + 2, guard), queue);
    const std::size_t r = clprim::run_length_encode(d.begin(), d.end(), out2.begin() + 1, counts.begin() + 1, queue);
    BOOST_TEST(r == ek.size(), label << " rle n=" << n);
    h = to_host(out2, queue);
    const auto hcnt = to_host(counts, queue);
    got.assign(h.begin() + 1, h.begin() + 1 + std::min(r, n));
    std::vector<cl_uint> gc(hcnt.begin() + 1, hcnt.begin() + 1 + std::min(r, n));
    BOOST_TEST(bit_equal(got, ek), label << " rle values n=" << n << ": first difference at " << first_difference(got, ek));
    BOOST_TEST(bit_equal(gc, ec), label << " rle counts n=" << n << ": first difference at " << first_difference(gc, ec));
    guards = hcnt.front() == 7u && same_bits(h.front(), guard);
    for (std::size_t i = 1 + r; i < n + 2; ++i) guards = guards && hcnt[i] == 7u && same_bits(h[i], guard);
    BOOST_TEST(guards, label << " rle n=" << n << ": wrote outside the results");
    clprim::run_length_encode(d.begin(), d.end(), out2.begin() + 1, counts.begin() + 1, c.begin() + 1, queue);
    hc = to_host(c, queue);
    BOOST_TEST((hc[0] == 5 && hc[1] == ek.size() && hc[2] == 5), label << " rle count_result " << hc[1]);
}

} // namespace clprim_test

// clprim::reduce_by_key and the scans by key (inclusive / exclusive, sums and operators), and
// the work-group segmented scans of workgroup_source(): against host references over runs of
// length 1, random runs of 1..15, one run; every key type with uint values and a few cross pairs;
// float keys by their bits; count overloads; in place; sub-ranges with guards; an out-of-order
// queue; both device-wide paths forced (CLPRIM_BY_KEY_PATH) and tiny look-back tiles.
#define BOOST_TEST_MODULE clprim_by_key
#include "by_key_test_checks.hpp"
#include "host_operators.hpp"

#include <boost/compute/function.hpp>
#include <boost/compute/lambda.hpp>
#include <clprim/detail/lookback_slots.hpp>

using namespace clprim_test;

namespace {

template <class K, class V>
void reduce_sum_matrix(bc::command_queue& queue, const std::vector<std::size_t>& sizes)
{
    if (!type_runs_here<K>() || !type_runs_here<V>()) return;
    for (const char* path : by_key_paths()) {
        env_override force("CLPRIM_BY_KEY_PATH", path);
        for (std::size_t n : sizes)
            for (const auto& s : run_shapes()) {
                if (n > 70000 && s.max_run == 1 && std::string(path) == "chunks") continue;
                const auto keys = run_keys<K>(n, std::min(s.min_run, std::max<std::size_t>(n, 1)),
                                              std::min(s.max_run, std::max<std::size_t>(n, 1)));
                const auto vals = small_values<V>(n);
                check_reduce<K, V>(queue, keys, vals, true, bc::plus<V>(), add_wrap<V>, V(0),
                                   std::string(path) + " " + type_label<K>() + "->" + type_label<V>() + " " + s.name);
            }
    }
}

// Both scans by key through op_kind (0 sum, 1 max, 2 affine; by_key_test_checks.hpp).
template <class K, class V, class Op>
void check_scans(bc::command_queue& queue, const std::vector<K>& keys, const std::vector<V>& vals, int op_kind,
                 Op dop, V identity, V init, const std::string& label)
{
    auto hop = [&](V a, V b) -> V {
        if constexpr (std::is_same_v<V, cl_uint>) {
            if (op_kind == 1) return std::max(a, b);
            if (op_kind == 2) return host_affine_then(a, b);
        }
        return add_wrap(a, b);
    };
    check_scans_with<K, V>(queue, keys, vals, op_kind == 0, dop, hop, identity, init, label);
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(by_key, fixture)

// Every key type with uint values, both paths, every run shape and size.
BOOST_AUTO_TEST_CASE(reduce_by_key_every_key_type)
{
    const auto sizes = by_key_sizes();
    reduce_sum_matrix<cl_uint, cl_uint>(queue, sizes);
    const std::vector<std::size_t> few{0, 1, 33, 4097, 65537};
    reduce_sum_matrix<cl_int, cl_uint>(queue, few);
    reduce_sum_matrix<cl_long, cl_uint>(queue, few);
    reduce_sum_matrix<cl_ulong, cl_uint>(queue, few);
    reduce_sum_matrix<cl_float, cl_uint>(queue, few);
    reduce_sum_matrix<cl_double, cl_uint>(queue, few);
}

// Keys and values of different types (64-bit values take two look-back words).
BOOST_AUTO_TEST_CASE(reduce_by_key_cross_types)
{
    const std::vector<std::size_t> few{1, 257, 65537};
    reduce_sum_matrix<cl_uint, cl_double>(queue, few);
    reduce_sum_matrix<cl_float, cl_long>(queue, few);
    reduce_sum_matrix<cl_ulong, cl_float>(queue, few);
}

// Operators: bc::max and a non-commutative function (order kept), reduce and both scans.
BOOST_AUTO_TEST_CASE(operators)
{
    for (const char* path : by_key_paths()) {
        env_override force("CLPRIM_BY_KEY_PATH", path);
        for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(1021), std::size_t(65537)}) {
            const auto keys = run_keys<cl_uint>(n, 1, 15);
            std::vector<cl_uint> vals = make_data<cl_uint>(n, distribution::random);
            const std::string p = path;
            check_reduce<cl_uint, cl_uint>(queue, keys, vals, false, bc::max<cl_uint>(),
                                           [](cl_uint a, cl_uint b) { return std::max(a, b); }, 0u, p + " max");
            check_reduce<cl_uint, cl_uint>(queue, keys, vals, false, affine_then, host_affine_then, affine_identity,
                                           p + " affine");
            check_scans<cl_uint, cl_uint>(queue, keys, vals, 1, bc::max<cl_uint>(), 0u, 5u, p + " max");
            check_scans<cl_uint, cl_uint>(queue, keys, vals, 2, affine_then, affine_identity, (3u << 16) | 7u, p + " affine");
        }
    }
}

// Sum scans by key: key types with value types, in place, init, both paths.
BOOST_AUTO_TEST_CASE(scans_by_key)
{
    for (const char* path : by_key_paths()) {
        env_override force("CLPRIM_BY_KEY_PATH", path);
        for (std::size_t n : by_key_sizes()) {
            if (n > 70000 && std::string(path) == "chunks") continue;
            const std::string p = path;
            for (const auto& s : run_shapes()) {
                const std::size_t lo = std::min(s.min_run, std::max<std::size_t>(n, 1)), hi = std::min(s.max_run, std::max<std::size_t>(n, 1));
                check_scans<cl_uint, cl_uint>(queue, run_keys<cl_uint>(n, lo, hi), small_values<cl_uint>(n), 0,
                                              bc::plus<cl_uint>(), 0u, 3u, p + " uint->uint " + s.name);
            }
            if (n > 70000) continue;
            check_scans<cl_float, cl_float>(queue, run_keys<cl_float>(n, 1, 15), small_values<cl_float>(n), 0,
                                            bc::plus<cl_float>(), 0.0f, 0.5f, p + " float->float");
            check_scans<cl_long, cl_ulong>(queue, run_keys<cl_long>(n, 1, 15), small_values<cl_ulong>(n), 0,
                                           bc::plus<cl_ulong>(), 0ul, 1ul, p + " long->ulong");
        }
    }
}

// Tiny look-back tiles (4 work-items x 3 elements): thousands of tiles, look-backs across many
// windows, runs across tile borders.
BOOST_AUTO_TEST_CASE(tiny_lookback_tiles)
{
    env_override force("CLPRIM_BY_KEY_PATH", "lookback");
    env_override tune("CLPRIM_BY_KEY_TUNE", "4,3");
    for (const char* kernel : {"gather", "gather_index", "registers", "lean"}) {
    env_override kern("CLPRIM_BY_KEY_KERNEL", std::string(kernel) == "gather_index" ? "gather" : kernel);
    env_override epilogue("CLPRIM_BY_KEY_EPILOGUE", std::string(kernel) == "gather_index" ? "index" : "search");
    for (std::size_t n : {std::size_t(13), std::size_t(4099), std::size_t(65537)}) {
        for (const auto& s : run_shapes()) {
            const std::size_t lo = std::min(s.min_run, n), hi = std::min(s.max_run, n);
            check_reduce<cl_uint, cl_uint>(queue, run_keys<cl_uint>(n, lo, hi), small_values<cl_uint>(n), true,
                                           bc::plus<cl_uint>(), add_wrap<cl_uint>, 0u, std::string("tiny ") + kernel + " " + s.name);
            check_reduce<cl_uint, cl_double>(queue, run_keys<cl_uint>(n, lo, hi), small_values<cl_double>(n), true,
                                              bc::plus<cl_double>(), add_wrap<cl_double>, 0.0, std::string("tiny double ") + kernel + " " + s.name);
        }
    }
    }
}

// The look-back's decoupled fallback taken by every tile (CLPRIM_LOOKBACK=fallback: each tile
// computes its predecessor's pair from the input instead of waiting): results must be the same,
// bit for bit (the fallback folds as the owner does). Small tiles for thousands of them, runs
// across tile borders, reduce_by_key and both scans by key in place and not.
BOOST_AUTO_TEST_CASE(lookback_fallback_every_tile)
{
    env_override force("CLPRIM_BY_KEY_PATH", "lookback");
    env_override fallback("CLPRIM_LOOKBACK", "fallback");
    env_override tune("CLPRIM_BY_KEY_TUNE", "8,3");
    for (const char* kernel : {"gather", "gather_index", "registers", "lean"}) {
    env_override kern("CLPRIM_BY_KEY_KERNEL", std::string(kernel) == "gather_index" ? "gather" : kernel);
    env_override epilogue("CLPRIM_BY_KEY_EPILOGUE", std::string(kernel) == "gather_index" ? "index" : "search");
    for (std::size_t n : {std::size_t(1), std::size_t(25), std::size_t(4099), std::size_t(65537)}) {
        for (const auto& s : run_shapes()) {
            const std::size_t lo = std::min(s.min_run, n), hi = std::min(s.max_run, n);
            const auto keys = run_keys<cl_uint>(n, lo, hi);
            check_reduce<cl_uint, cl_uint>(queue, keys, small_values<cl_uint>(n), true, bc::plus<cl_uint>(),
                                           add_wrap<cl_uint>, 0u, std::string("fallback ") + kernel + " " + s.name);
            check_reduce<cl_uint, cl_double>(queue, keys, small_values<cl_double>(n), true, bc::plus<cl_double>(),
                                              add_wrap<cl_double>, 0.0, std::string("fallback double ") + kernel + " " + s.name);
            check_scans<cl_uint, cl_uint>(queue, keys, small_values<cl_uint>(n), 0, bc::plus<cl_uint>(), 0u, 3u,
                                          std::string("fallback scans ") + kernel + " " + s.name);
        }
    }
    }
}

// run_length_encode (the pair kernel with the value 1) against the host, with guards.
void check_rle(bc::command_queue& queue, const std::vector<cl_uint>& keys, const std::string& label)
{
    std::vector<cl_uint> ek, ec;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        if (i == 0 || keys[i] != keys[i - 1]) {
            ek.push_back(keys[i]);
            ec.push_back(0);
        }
        ++ec.back();
    }
    const std::size_t n = keys.size();
    auto dk = to_device(keys, queue);
    bc::vector<cl_uint> ok = to_device(std::vector<cl_uint>(n + 2, 55u), queue);
    bc::vector<cl_uint> oc = to_device(std::vector<cl_uint>(n + 2, 66u), queue);
    const std::size_t count = clprim::run_length_encode(dk.begin(), dk.end(), ok.begin() + 1, oc.begin() + 1, queue);
    BOOST_TEST(count == ek.size(), label << " n=" << n);
    const auto hk = to_host(ok, queue), hc = to_host(oc, queue);
    BOOST_TEST((std::vector<cl_uint>(hk.begin() + 1, hk.begin() + 1 + std::min(count, n)) == ek), label << " n=" << n << ": values");
    BOOST_TEST((std::vector<cl_uint>(hc.begin() + 1, hc.begin() + 1 + std::min(count, n)) == ec), label << " n=" << n << ": counts");
    BOOST_TEST((hk.front() == 55u && hc.front() == 66u && (count + 1 >= n + 2 || (hk[count + 1] == 55u && hc[count + 1] == 66u))),
               label << " n=" << n << ": wrote outside the results");
}

// NVIDIA's warp pieces of the single pass (by_key_warp.cl): the tile's scan by shuffles
// (CLPRIM_BY_KEY_SCAN=shfl) and the look-back walked by one warp (CLPRIM_BY_KEY_WALK=warp), each
// alone and together, tiles by group id or in start order (CLPRIM_BY_KEY_ORDER), with the
// policy's tiles and small ones (32 x 3: thousands of tiles, walks across many windows), the
// fallback taken by every tile too; sums of 1-, 4- and 8-byte values, a non-commutative
// operator, both scans in place and not, run-length encoding. Elsewhere the scan and walk
// knobs change nothing.
BOOST_AUTO_TEST_CASE(warp_pieces)
{
    env_override force("CLPRIM_BY_KEY_PATH", "lookback");
    const bool nvidia = clprim::detail::profile_of(queue.get_device()).nvidia;
    struct form {
        const char *scan, *walk, *tune, *lookback, *order, *early;
    };
    // (Elsewhere than on NVIDIA the scan and walk knobs change nothing.) early: the stream
    // before the look-back (CLPRIM_BY_KEY_EARLY; the policy: the scans by key only).
    std::vector<form> forms{{"shfl", "warp", "", "wait", "", ""}, {"shfl", "warp", "32,3", "fallback", "", "1"},
                            {"local", "group", "32,3", "wait", "group", "0"}};
    if (nvidia) {
        forms.push_back({"shfl", "warp", "32,3", "wait", "start", "1"});
        forms.push_back({"local", "warp", "32,3", "fallback", "", ""});
    }
    for (const form& f : forms) {
        env_override scan("CLPRIM_BY_KEY_SCAN", f.scan);
        env_override walk("CLPRIM_BY_KEY_WALK", f.walk);
        env_override tune("CLPRIM_BY_KEY_TUNE", f.tune);
        env_override lookback("CLPRIM_LOOKBACK", f.lookback);
        env_override order("CLPRIM_BY_KEY_ORDER", f.order);
        env_override early("CLPRIM_BY_KEY_EARLY", f.early);
        env_override vec("CLPRIM_BY_KEY_VEC", "1"); // (the GPUs' 16-byte loads on every device)
        const std::string label =
            std::string(f.scan) + "/" + f.walk + " tile " + f.tune + " " + f.lookback + " order " + f.order + " early " + f.early;
        for (std::size_t n : {std::size_t(1), std::size_t(25), std::size_t(4099), std::size_t(65537), std::size_t(300007)}) {
            if (n > 70000 && (!nvidia || &f != &forms.front())) continue;
            for (const auto& s : run_shapes()) {
                const std::size_t lo = std::min(s.min_run, n), hi = std::min(s.max_run, n);
                const auto keys = run_keys<cl_uint>(n, lo, hi);
                check_reduce<cl_uint, cl_uint>(queue, keys, small_values<cl_uint>(n), true, bc::plus<cl_uint>(),
                                               add_wrap<cl_uint>, 0u, label + " " + s.name);
                check_rle(queue, keys, label + " rle " + s.name);
                {
                    env_override lean("CLPRIM_BY_KEY_KERNEL", "lean"); // (reduce_by_key, run-length: by_key_lean.cl)
                    check_reduce<cl_uint, cl_uint>(queue, keys, small_values<cl_uint>(n), true, bc::plus<cl_uint>(),
                                                   add_wrap<cl_uint>, 0u, label + " lean " + s.name);
                    check_rle(queue, keys, label + " lean rle " + s.name);
                    if (n <= 70000)
                        check_reduce<cl_uint, cl_uint>(queue, keys, make_data<cl_uint>(n, distribution::random), false,
                                                       affine_then, host_affine_then, affine_identity, label + " lean affine " + s.name);
                }
                {
                    env_override rle("CLPRIM_BY_KEY_RLE", "positions");
                    env_override gather("CLPRIM_BY_KEY_KERNEL", "gather"); // (positions: gather's)
                    check_rle(queue, keys, label + " rle by positions " + s.name);
                }
                if (n > 70000) continue;
                check_reduce<cl_uint, cl_double>(queue, keys, small_values<cl_double>(n), true, bc::plus<cl_double>(),
                                                  add_wrap<cl_double>, 0.0, label + " double " + s.name);
                check_reduce<cl_uint, cl_uint>(queue, keys, make_data<cl_uint>(n, distribution::random), false,
                                               affine_then, host_affine_then, affine_identity, label + " affine " + s.name);
                check_scans<cl_uint, cl_uint>(queue, keys, small_values<cl_uint>(n), 0, bc::plus<cl_uint>(), 0u, 3u,
                                              label + " scans " + s.name);
                if (s.max_run == 15)
                    check_scans<cl_uint, cl_uint>(queue, keys, make_data<cl_uint>(n, distribution::random), 2,
                                                  affine_then, affine_identity, (3u << 16) | 7u, label + " affine scans");
            }
            if (n <= 70000 && type_runs_here<cl_uchar>() && type_runs_here<cl_char>())
                check_reduce<cl_uchar, cl_char>(queue, run_keys<cl_uchar>(n, 1, 15), small_values<cl_char>(n), true,
                                                bc::plus<cl_char>(), add_wrap<cl_char>, cl_char(0), label + " uchar->char");
        }
    }
}

// A tile's status as one 16-byte vector (CLPRIM_BY_KEY_SLOT=vector: count and value written and
// read by one access, modes with values of at most 4 bytes), on NVIDIA the lean tile's quick wait
// (CLPRIM_BY_KEY_LEAN_WAIT=quick: warp 0 walks right after its own stage, one barrier; preread:
// its first round's slots read before the stage) and persistent lean work-groups
// (CLPRIM_BY_KEY_PERSIST: tile after tile from the start-order counter, the next tile loaded
// before the look-back; many groups a compute unit too, more than can be resident on a GPU), two
// sub-tiles a look-back (CLPRIM_BY_KEY_LEAN_SUB=2; runs of 1 too: the second staged late); the
// fallback taken by every tile too, tiny tiles and the policy's, lean and gather, 1-, 4- and
// 8-byte values (8: the words' layout), a non-commutative operator, the scans in place. Every
// form makes several calls in a row (the persistent groups' counter is set back for the next).
BOOST_AUTO_TEST_CASE(status_vector_quick_wait_persistent)
{
    env_override force("CLPRIM_BY_KEY_PATH", "lookback");
    const bool nvidia = clprim::detail::profile_of(queue.get_device()).nvidia;
    struct form {
        const char *slot, *wait, *tune, *lookback, *persist, *groups, *sub;
    };
    std::vector<form> forms{{"vector", "quick", "", "wait", "0", "", "1"},
                            {"vector", "quick", "32,3", "fallback", "1", "3", "1"},
                            {"words", "group", "32,3", "fallback", "0", "", "2"}};
    if (nvidia) { // (elsewhere the wait knob changes nothing, and persist 2 is persist 1 without the prefetch)
        forms.push_back({"words", "group", "32,3", "wait", "1", "", "1"});
        forms.push_back({"words", "quick", "32,3", "wait", "0", "", "1"});
        forms.push_back({"vector", "group", "32,3", "wait", "2", "", "1"});
        forms.push_back({"vector", "preread", "", "wait", "1", "", "1"});
        forms.push_back({"vector", "preread", "32,3", "fallback", "0", "", "1"});
        forms.push_back({"vector", "preread", "", "wait", "2", "64", "1"});
        forms.push_back({"vector", "preread", "", "wait", "0", "", "2"});
        forms.push_back({"vector", "quick", "32,3", "wait", "0", "", "2"});
    }
    for (const form& f : forms) {
        env_override slot("CLPRIM_BY_KEY_SLOT", f.slot);
        env_override wait("CLPRIM_BY_KEY_LEAN_WAIT", f.wait);
        env_override tune("CLPRIM_BY_KEY_TUNE", f.tune);
        env_override lookback("CLPRIM_LOOKBACK", f.lookback);
        env_override persist("CLPRIM_BY_KEY_PERSIST", f.persist);
        env_override groups("CLPRIM_BY_KEY_PERSIST_GROUPS", f.groups);
        env_override sub("CLPRIM_BY_KEY_LEAN_SUB", f.sub);
        env_override vec("CLPRIM_BY_KEY_VEC", "1");
        const std::string label = std::string(f.slot) + "/" + f.wait + " tile " + f.tune + " " + f.lookback + " persist " +
                                  f.persist + " groups " + f.groups + " sub " + f.sub;
        for (std::size_t n : {std::size_t(1), std::size_t(25), std::size_t(4099), std::size_t(65537), std::size_t(1000003)}) {
            if (n > 70000 && (!nvidia || &f != &forms.front())) continue;
            const auto keys = run_keys<cl_uint>(n, 1, 15);
            for (const char* kernel : {"lean", "gather"}) {
                if (&f != &forms.front() && std::string(kernel) == "gather") continue; // (the knobs but the slot's: lean only)
                env_override kern("CLPRIM_BY_KEY_KERNEL", kernel);
                const std::string l = label + " " + kernel;
                check_reduce<cl_uint, cl_uint>(queue, keys, small_values<cl_uint>(n), true, bc::plus<cl_uint>(),
                                               add_wrap<cl_uint>, 0u, l);
                check_rle(queue, keys, l + " rle");
                if (std::string(f.sub) == "2" && std::string(kernel) == "lean") { // (runs of 1: the second sub-tile staged late)
                    const auto ones = run_keys<cl_uint>(n, 1, 1);
                    check_reduce<cl_uint, cl_uint>(queue, ones, small_values<cl_uint>(n), true, bc::plus<cl_uint>(),
                                                   add_wrap<cl_uint>, 0u, l + " runs of 1");
                    check_rle(queue, ones, l + " rle runs of 1");
                }
                if (n > 70000) continue;
                check_reduce<cl_uint, cl_uint>(queue, keys, make_data<cl_uint>(n, distribution::random), false,
                                               affine_then, host_affine_then, affine_identity, l + " affine");
                if (&f - &forms.front() >= 2) continue; // (other value types: the first two forms)
                check_reduce<cl_uint, cl_double>(queue, keys, small_values<cl_double>(n), true, bc::plus<cl_double>(),
                                                  add_wrap<cl_double>, 0.0, l + " double");
                if (type_runs_here<cl_uchar>() && type_runs_here<cl_char>())
                    check_reduce<cl_uchar, cl_char>(queue, run_keys<cl_uchar>(n, 1, 15), small_values<cl_char>(n), true,
                                                    bc::plus<cl_char>(), add_wrap<cl_char>, cl_char(0), l + " uchar->char");
            }
            if (n > 70000 || &f != &forms.front()) continue;
            {
                env_override rle("CLPRIM_BY_KEY_RLE", "positions");
                check_rle(queue, keys, label + " rle by positions");
            }
            check_scans<cl_uint, cl_uint>(queue, keys, small_values<cl_uint>(n), 0, bc::plus<cl_uint>(), 0u, 3u,
                                          label + " scans");
        }
    }
}

// Calls one after another on one queue leave their look-back status words in the queue's slots
// (clprim/detail/lookback_slots.hpp: tagged by the call's epoch, never cleared between calls):
// each call must take only its own epoch's words. Sizes shrinking and growing with tiny tiles and
// the policy's (a later call's slots lie over an earlier call's counts and values), 4- and 8-byte
// values (one or two value words per slot), a copy_if on the same queue in between (another user
// of the slots), every read form of the count, and across the epoch's wrap.
BOOST_AUTO_TEST_CASE(stale_status_words_across_calls)
{
    env_override force("CLPRIM_BY_KEY_PATH", "lookback");
    env_override copy_if_path("CLPRIM_COPY_IF_PATH", "single_pass");
    const std::size_t sizes[] = {65537, 4099, 13, 30011, 1000, 65537, 257, 2};
    auto run_all = [&](const std::string& label) {
        int i = 0;
        for (std::size_t n : sizes) {
            env_override read("CLPRIM_BY_KEY_READ", std::to_string(i % 6));
            const std::string what = label + " call " + std::to_string(i) + " read " + std::to_string(i % 6);
            const auto keys = run_keys<cl_uint>(n, 1, std::min<std::size_t>(n, i % 2 ? 3 : 15));
            if (i % 2 == 0)
                check_reduce<cl_uint, cl_uint>(queue, keys, small_values<cl_uint>(n), true, bc::plus<cl_uint>(),
                                               add_wrap<cl_uint>, 0u, "uint " + what);
            else
                check_reduce<cl_uint, cl_double>(queue, keys, small_values<cl_double>(n), true, bc::plus<cl_double>(),
                                                  add_wrap<cl_double>, 0.0, "double " + what);
            // copy_if over the keys on the same queue (odd keys kept).
            const std::size_t odd = std::size_t(std::count_if(keys.begin(), keys.end(), [](cl_uint k) { return (k & 1u) != 0; }));
            bc::vector<cl_uint> dk = to_device(keys, queue), out(n, context);
            using bc::lambda::_1;
            BOOST_TEST(clprim::copy_if(dk.begin(), dk.end(), out.begin(), queue, (_1 & 1u) == 1u) == odd, "copy_if " << what);
            ++i;
        }
    };
    for (const char* tune : {"4,3", "32,5", ""}) {
        env_override t("CLPRIM_BY_KEY_TUNE", tune);
        env_override ct("CLPRIM_COPY_IF_TUNE", tune);
        run_all(std::string("tune ") + (*tune ? tune : "policy's"));
    }
    env_override t("CLPRIM_BY_KEY_TUNE", "4,3");
    clprim::detail::set_next_lookback_epoch(queue, clprim::detail::max_lookback_epoch - 4);
    run_all("across the epoch's wrap");
}

// Sub-ranges of larger buffers (keys, values and results at offsets), on an out-of-order queue.
BOOST_AUTO_TEST_CASE(sub_ranges_out_of_order_queue)
{
    bc::command_queue ooo(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    for (const char* path : by_key_paths()) {
        env_override force("CLPRIM_BY_KEY_PATH", path);
        check_sub_ranges(queue, ooo, 5000);
    }
}

BOOST_AUTO_TEST_CASE(bad_input_throws)
{
    auto k = to_device(std::vector<cl_uint>(100, 1u), queue);
    auto v = to_device(std::vector<cl_uint>(100, 1u), queue);
    bc::vector<cl_uint> out(100, context);
    // Results overlapping the inputs.
    BOOST_CHECK_THROW(clprim::reduce_by_key(k.begin(), k.end(), v.begin(), k.begin(), out.begin(), queue),
                      clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::reduce_by_key(k.begin(), k.end(), v.begin(), out.begin(), v.begin(), queue),
                      clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::inclusive_scan_by_key(k.begin(), k.end(), v.begin(), v.begin() + 1, queue),
                      clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::exclusive_scan_by_key(k.begin(), k.end(), v.begin(), k.begin(), queue),
                      clprim::invalid_argument_error);
    // Reversed range; values too short.
    BOOST_CHECK_THROW(clprim::inclusive_scan_by_key(k.end(), k.begin(), v.begin(), out.begin(), queue),
                      clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::inclusive_scan_by_key(k.begin(), k.end(), v.begin() + 50, out.begin(), queue),
                      clprim::invalid_argument_error);
    // Results too small for the runs (100 runs of 1 into room for 10): error, nothing past the end.
    std::vector<cl_uint> distinct(100);
    for (cl_uint i = 0; i < 100; ++i) distinct[i] = i;
    auto dk = to_device(distinct, queue);
    bc::vector<cl_uint> small_k(10, context), small_v(10, context);
    BOOST_CHECK_THROW(clprim::reduce_by_key(dk.begin(), dk.end(), v.begin(), small_k.begin(), small_v.begin(), queue),
                      clprim::invalid_argument_error);
}

// The work-group form in a user's kernel: segmented sums of uint (defined) and int, long
// (CLPRIM_WG_DEFINE), over a work-group of 64 with random segment starts.
BOOST_AUTO_TEST_CASE(workgroup_segmented_scans)
{
    const std::string src = clprim::workgroup_source() + R"CLC(
CLPRIM_WG_DEFINE(int)
CLPRIM_WG_DEFINE(long)
__kernel void seg(__global const uint* x, __global const uint* f, __global uint* inc, __global uint* exc,
                  __global int* inc_i, __global long* exc_l)
{
    __local uint s[CLPRIM_WG_SCRATCH(64)];
    __local int si[CLPRIM_WG_SCRATCH(64)];
    __local long sl[CLPRIM_WG_SCRATCH(64)];
    const size_t g = get_global_id(0);
    inc[g] = clprim_wg_segmented_inclusive_scan_uint(x[g], f[g], s);
    exc[g] = clprim_wg_segmented_exclusive_scan_uint(x[g], f[g], s);
    inc_i[g] = clprim_wg_segmented_inclusive_scan_int((int)x[g] - 500, f[g], si);
    exc_l[g] = clprim_wg_segmented_exclusive_scan_long((long)x[g] << 20, f[g], sl);
}
)CLC";
    bc::program program = bc::program::create_with_source(src, context);
    try {
        program.build();
    } catch (const bc::opencl_error&) {
        BOOST_FAIL("build log: " << program.build_log());
    }
    bc::kernel k = program.create_kernel("seg");
    const std::size_t wg = 64, groups = 5, n = wg * groups;
    const auto x = small_values<cl_uint>(n);
    std::vector<cl_uint> f(n);
    std::mt19937 rng(3);
    for (auto& e : f) e = rng() % 7 == 0 ? 1u + rng() % 3 : 0u;
    auto dx = to_device(x, queue), df = to_device(f, queue);
    bc::vector<cl_uint> inc(n, context), exc(n, context);
    bc::vector<cl_int> inc_i(n, context);
    bc::vector<cl_long> exc_l(n, context);
    k.set_args(dx, df, inc, exc, inc_i, exc_l);
    queue.enqueue_1d_range_kernel(k, 0, n, wg);
    const auto hi = to_host(inc, queue), he = to_host(exc, queue);
    const auto hii = to_host(inc_i, queue);
    const auto hel = to_host(exc_l, queue);
    bool ok = true;
    for (std::size_t g = 0; g < groups; ++g) {
        cl_uint acc = 0;
        cl_int acc_i = 0;
        cl_long acc_l = 0;
        for (std::size_t l = 0; l < wg; ++l) {
            const std::size_t i = g * wg + l;
            if (l == 0 || f[i]) acc = 0, acc_i = 0, acc_l = 0;
            ok = ok && he[i] == acc && hel[i] == acc_l;
            acc += x[i];
            acc_i += cl_int(x[i]) - 500;
            acc_l += cl_long(x[i]) << 20;
            ok = ok && hi[i] == acc && hii[i] == acc_i;
        }
    }
    BOOST_TEST(ok);
}

BOOST_AUTO_TEST_SUITE_END()

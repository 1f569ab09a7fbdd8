// clprim::segmented_reduce: every length mix of issue #29 in small form (tiny, fixed 32 / 1024 /
// 65536, a few large, power-law, many empty + one huge, random with empties), offsets[0] > 0 with
// guards around every range, cl_uint and cl_ulong offsets, every type with sum / min / max, user
// operators (a non-commutative one keeps element order), malformed offsets (guards untouched), an
// out-of-order queue, both paths forced; against host folds.
#define BOOST_TEST_MODULE clprim_segmented_reduce
#include "clprim_test_fixture.hpp"
#include "segments_test_support.hpp"

#include <clprim/detail/device_profile.hpp>

#include <boost/compute/function.hpp>

using namespace clprim_test;

namespace {

BOOST_COMPUTE_FUNCTION(cl_uint, first_nonzero, (cl_uint a, cl_uint b), { return a != 0 ? a : b; });

constexpr std::size_t guard_count = 3;

bool on_cpu() { return clprim::detail::profile_of(device_under_test::get().device).is_cpu(); }

// The three paths: the GPU one in one launch (segmented_reduce_single.cl), the GPU one with
// teams + scan + chunks + finish, the CPU one; each forced for the scope of a loop body.
struct forced_path {
    const char* name;
    env_override path, long_way;
    explicit forced_path(int i)
        : name(i == 0 ? "gpu" : i == 1 ? "gpu-chunks" : "cpu"), path("CLPRIM_SEGMENTED_PATH", i == 2 ? "cpu" : "gpu"),
          long_way("CLPRIM_SEGMENTED_REDUCE_LONG", i == 1 ? "chunks" : "single")
    {
    }
};

// Data of n elements that sum exactly in every type (small integers; signed ones also negative).
template <class T>
std::vector<T> small_values(std::size_t n, std::uint64_t seed = 3)
{
    std::mt19937_64 rng(seed ^ n);
    std::vector<T> v(n);
    for (auto& x : v) {
        const int r = int(rng() % 32);
        x = std::is_signed_v<T> ? T(r - 16) : T(r);
    }
    return v;
}

// Runs call(first, last, offsets_first, offsets_last, result, queue) on data and offsets placed
// between guards, checks every guard and the input afterwards, and (unless malformed) the result
// against fold(op, identity) of every segment.
template <class T, class Offset, class HostOp, class Call>
void check(bc::command_queue& queue, const std::vector<T>& data, const std::vector<Offset>& offsets, HostOp op,
           T identity, Call call, const std::string& label, bool malformed = false)
{
    const std::size_t n = data.size(), S = offsets.size() - 1;
    std::vector<T> with_guards(n + 2 * guard_count, T(91));
    std::copy(data.begin(), data.end(), with_guards.begin() + guard_count);
    std::vector<Offset> offs_g(offsets.size() + 2 * guard_count, Offset(0));
    std::copy(offsets.begin(), offsets.end(), offs_g.begin() + guard_count);
    std::vector<T> result_g(S + 2 * guard_count, T(57));
    bc::vector<T> d = to_device(with_guards, queue);
    bc::vector<Offset> o = to_device(offs_g, queue);
    bc::vector<T> r = to_device(result_g, queue);
    call(d.begin() + guard_count, d.begin() + guard_count + n, o.begin() + guard_count,
         o.begin() + guard_count + S + 1, r.begin() + guard_count, queue);
    const auto hd = to_host(d, queue);
    const auto ho = to_host(o, queue);
    const auto hr = to_host(r, queue);
    BOOST_TEST(bit_equal(hd, with_guards), label << ": the input or its guards changed");
    BOOST_TEST(ho == offs_g, label << ": the offsets changed");
    bool guards = true;
    for (std::size_t i = 0; i < guard_count; ++i)
        guards = guards && hr[i] == T(57) && hr[guard_count + S + i] == T(57);
    BOOST_TEST(guards, label << ": wrote outside the result");
    if (malformed) return;
    std::vector<T> expected(S), got(hr.begin() + guard_count, hr.begin() + guard_count + S);
    for (std::size_t s = 0; s < S; ++s) {
        T acc = identity;
        for (std::size_t i = offsets[s]; i < std::size_t(offsets[s + 1]); ++i) acc = op(acc, data[i]);
        expected[s] = acc;
    }
    const long diff = first_difference(got, expected);
    BOOST_TEST(diff == -1, label << ": first difference at segment " << diff << " of " << S
                                 << (diff >= 0 ? " (got " + std::to_string(double(got[diff])) + ", expected " +
                                                     std::to_string(double(expected[diff])) + ")"
                                               : std::string()));
}

template <class T>
T wrap_add(T a, T b)
{
    if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        return T(U(a) + U(b));
    } else {
        return a + b;
    }
}

template <class T, class Offset>
void check_op(bc::command_queue& queue, const std::vector<T>& data, const std::vector<Offset>& offsets,
              clprim::reduce_op op, const std::string& label, bool malformed = false)
{
    auto call = [op](auto f, auto l, auto of, auto ol, auto res, bc::command_queue& q) {
        clprim::segmented_reduce(f, l, of, ol, res, q, op);
    };
    using lim = std::numeric_limits<T>;
    switch (op) {
    case clprim::reduce_op::sum: return check(queue, data, offsets, wrap_add<T>, T(0), call, label + " sum", malformed);
    case clprim::reduce_op::min: {
        const T id = std::is_floating_point_v<T> ? lim::infinity() : lim::max();
        return check(queue, data, offsets, [](T a, T b) { return b < a ? b : a; }, id, call, label + " min", malformed);
    }
    case clprim::reduce_op::max: {
        const T id = std::is_floating_point_v<T> ? -lim::infinity() : lim::lowest();
        return check(queue, data, offsets, [](T a, T b) { return a < b ? b : a; }, id, call, label + " max", malformed);
    }
    }
}

std::vector<mix_case> mixes()
{
    const bool big = !on_cpu();
    return standard_mixes(big ? (std::size_t(1) << 24) : (std::size_t(1) << 18), big ? 100000 : 10000);
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(segmented_reduce, fixture)

BOOST_AUTO_TEST_CASE(length_mixes_both_paths)
{
    for (int way = 0; way < 3; ++way) {
        forced_path force(way);
        const char* path = force.name;
        for (const auto& m : mixes()) {
            const auto lengths = segment_lengths(m.mix, m.n, m.len);
            for (std::size_t base : {std::size_t(0), std::size_t(5)}) {
                const auto data = small_values<cl_uint>(m.n + base + 3);
                const auto offsets = offsets_from_lengths<cl_uint>(lengths, base);
                check_op(queue, data, offsets, clprim::reduce_op::sum,
                         std::string(path) + " " + name_of(m.mix) + " n=" + std::to_string(m.n) + " len=" +
                             std::to_string(m.len) + " base=" + std::to_string(base));
            }
        }
    }
}

// The one-launch path's short segments with other solo lengths than the default (16, in every
// other case, user operators included): every one by a team (0), only the empty ones alone (1).
// Two mixes (each team size is one more program to build).
BOOST_AUTO_TEST_CASE(one_launch_solo_lengths)
{
    env_override force("CLPRIM_SEGMENTED_PATH", "gpu");
    env_override long_way("CLPRIM_SEGMENTED_REDUCE_LONG", "single");
    for (const char* solo : {"0", "1"}) {
        env_override set("CLPRIM_SEGMENTED_REDUCE_SOLO", solo);
        for (const auto& m : mixes()) {
            if (m.mix != seg_mix::empty_plus_one && m.mix != seg_mix::with_empties) continue;
            const auto lengths = segment_lengths(m.mix, m.n, m.len);
            const auto data = small_values<cl_uint>(m.n + 5);
            const auto offsets = offsets_from_lengths<cl_uint>(lengths, 5);
            check_op(queue, data, offsets, clprim::reduce_op::sum,
                     std::string("solo ") + solo + " " + name_of(m.mix) + " n=" + std::to_string(m.n));
        }
    }
}

// The one launch with the search for a range's first segment narrowed to one segment
// (CLPRIM_SEGMENTED_REDUCE_SEARCH=exact; the default stops at one walk step's candidates), every
// mix.
BOOST_AUTO_TEST_CASE(one_launch_exact_search)
{
    env_override force("CLPRIM_SEGMENTED_PATH", "gpu");
    env_override long_way("CLPRIM_SEGMENTED_REDUCE_LONG", "single");
    env_override search("CLPRIM_SEGMENTED_REDUCE_SEARCH", "exact");
    for (const auto& m : mixes()) {
        const auto lengths = segment_lengths(m.mix, m.n, m.len);
        const auto offsets = offsets_from_lengths<cl_uint>(lengths, 5);
        check_op(queue, small_values<cl_uint>(m.n + 5), offsets, clprim::reduce_op::sum,
                 std::string("exact ") + name_of(m.mix) + " n=" + std::to_string(m.n) + " len=" + std::to_string(m.len));
    }
}

// The one launch keeps its arrival words and partials in a buffer per queue and sets only the
// kernel arguments that changed: calls alternating between two queues, and calls after
// release_scratch_memory() (which drops the buffers; a new one may get an old one's handle).
BOOST_AUTO_TEST_CASE(one_launch_state_between_queues)
{
    env_override force("CLPRIM_SEGMENTED_PATH", "gpu");
    env_override long_way("CLPRIM_SEGMENTED_REDUCE_LONG", "single");
    bc::command_queue second(context, device);
    const auto lengths = segment_lengths(seg_mix::empty_plus_one, 200003, 5000);
    const auto offsets = offsets_from_lengths<cl_uint>(lengths, 1);
    for (int i = 0; i < 6; ++i) {
        bc::command_queue& q = i % 2 ? second : queue;
        check_op(q, small_values<cl_uint>(200004, 11 + i), offsets, clprim::reduce_op::sum,
                 "queue " + std::to_string(i % 2) + " call " + std::to_string(i));
        if (i % 3 == 2) clprim::release_scratch_memory();
    }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(every_type_and_op, T, all_types)
{
    if (!type_runs_here<T>()) return;
    for (int way = 0; way < 3; ++way) {
        forced_path force(way);
        const char* path = force.name;
        const auto lengths = segment_lengths(seg_mix::with_empties, 20011, 40);
        const auto offsets = offsets_from_lengths<cl_uint>(lengths, 2);
        const auto sums = small_values<T>(20020);
        check_op(queue, sums, offsets, clprim::reduce_op::sum, std::string(path) + " " + type_label<T>());
        const auto data = make_data<T>(20020, distribution::random);
        for (auto op : {clprim::reduce_op::min, clprim::reduce_op::max})
            check_op(queue, data, offsets, op, std::string(path) + " " + type_label<T>());
    }
}

BOOST_AUTO_TEST_CASE(small_chunks_vector_reads)
{
    // The GPU path with chunks of one element a work-item (CLPRIM_SEGMENTED_REDUCE_TUNE): long
    // segments in several chunks with ends at every residue mod 4 (the 4-element reads and their
    // one-by-one tail), at a size Oclgrind runs.
    env_override force("CLPRIM_SEGMENTED_PATH", "gpu");
    env_override long_way("CLPRIM_SEGMENTED_REDUCE_LONG", "chunks");
    env_override tune("CLPRIM_SEGMENTED_REDUCE_TUNE", "1,2");
    std::vector<std::size_t> lengths;
    for (std::size_t i = 0; i < 9; ++i) {
        lengths.push_back(2049 + 257 * i + i % 4);
        lengths.push_back(i % 5);
    }
    std::size_t n = 3;
    for (std::size_t l : lengths) n += l;
    const auto offsets = offsets_from_lengths<cl_uint>(lengths, 3);
    check_op(queue, small_values<cl_uint>(n), offsets, clprim::reduce_op::sum, "small chunks uint");
    check_op(queue, make_data<cl_float>(n, distribution::random), offsets, clprim::reduce_op::max, "small chunks float");
    check_op(queue, small_values<cl_long>(n), offsets, clprim::reduce_op::sum, "small chunks long");
}

BOOST_AUTO_TEST_CASE(one_launch_many_ranges)
{
    // The one-launch GPU path with as many element ranges as the tuning allows (64 groups per
    // compute unit, ranges of 4 x the work-group): long segments crossing many ranges (partials
    // combined by the last work-group, in order for a non-commutative operator), ends at every
    // residue mod 4 (aligned vector reads around scalars), offsets[0] > 0; then a call with
    // malformed offsets and two well-formed ones after it on the same queue (the arrival words
    // left behind must not count in later calls).
    env_override force("CLPRIM_SEGMENTED_PATH", "gpu");
    env_override long_way("CLPRIM_SEGMENTED_REDUCE_LONG", "single");
    env_override tune("CLPRIM_SEGMENTED_REDUCE_TUNE", "64,32,64");
    std::vector<std::size_t> lengths;
    for (std::size_t i = 0; i < 7; ++i) {
        lengths.push_back(9000 + 1031 * i + i % 4);
        lengths.push_back(i % 3);
        lengths.push_back(2049 + i);
    }
    std::size_t n = 3;
    for (std::size_t l : lengths) n += l;
    const auto offsets = offsets_from_lengths<cl_uint>(lengths, 3);
    check_op(queue, small_values<cl_uint>(n), offsets, clprim::reduce_op::sum, "many ranges uint");
    check_op(queue, make_data<cl_float>(n, distribution::random), offsets, clprim::reduce_op::min, "many ranges float");
    check_op(queue, small_values<cl_long>(n), offsets, clprim::reduce_op::sum, "many ranges long");
    std::vector<cl_uint> sparse(n);
    std::mt19937 rng(9);
    for (auto& x : sparse) x = rng() % 3000 == 0 ? 1 + rng() % 1000 : 0;
    check(queue, sparse, offsets, [](cl_uint a, cl_uint b) { return a != 0 ? a : b; }, cl_uint(0),
          [](auto f, auto l, auto of, auto ol, auto res, bc::command_queue& q) {
              clprim::segmented_reduce(f, l, of, ol, res, q, first_nonzero, 0u);
          },
          "many ranges first_nonzero");
    std::vector<cl_uint> overlapping;
    for (int i = 0; i < 40; ++i) overlapping.push_back(i % 2 ? cl_uint(n) : cl_uint(i));
    check_op(queue, small_values<cl_uint>(n), overlapping, clprim::reduce_op::sum, "many ranges overlapping", true);
    check_op(queue, small_values<cl_uint>(n), offsets, clprim::reduce_op::sum, "many ranges after malformed");
    check_op(queue, small_values<cl_uint>(n, 8), offsets, clprim::reduce_op::sum, "many ranges after malformed 2");
}

BOOST_AUTO_TEST_CASE(ulong_offsets)
{
    for (int way = 0; way < 3; ++way) {
        forced_path force(way);
        const char* path = force.name;
        for (seg_mix mix : {seg_mix::few_large, seg_mix::power_law, seg_mix::tiny}) {
            const std::size_t n = 200003;
            const auto data = small_values<cl_uint>(n + 9);
            const auto offsets = offsets_from_lengths<cl_ulong>(segment_lengths(mix, n, 0), 9);
            check_op(queue, data, offsets, clprim::reduce_op::max, std::string(path) + " ulong offsets " + name_of(mix));
            check_op(queue, data, offsets, clprim::reduce_op::sum, std::string(path) + " ulong offsets " + name_of(mix));
        }
    }
}

BOOST_AUTO_TEST_CASE(user_operators)
{
    for (int way = 0; way < 3; ++way) {
        forced_path force(way);
        const char* path = force.name;
        for (seg_mix mix : {seg_mix::few_large, seg_mix::with_empties, seg_mix::empty_plus_one}) {
            const std::size_t n = 150001;
            const auto lengths = segment_lengths(mix, n, 37);
            const std::string label = std::string(path) + " " + name_of(mix);
            // Mostly zeros: the first non-zero element of each segment, which only an
            // order-keeping reduction finds.
            std::vector<cl_uint> sparse(n);
            std::mt19937 rng(5);
            for (auto& x : sparse) x = rng() % 50 == 0 ? 1 + rng() % 1000 : 0;
            const auto offs = offsets_from_lengths<cl_uint>(lengths, 0);
            check(queue, sparse, offs, [](cl_uint a, cl_uint b) { return a != 0 ? a : b; }, cl_uint(0),
                  [](auto f, auto l, auto of, auto ol, auto res, bc::command_queue& q) {
                      clprim::segmented_reduce(f, l, of, ol, res, q, first_nonzero, 0u);
                  },
                  label + " first_nonzero");
            const auto ints = small_values<cl_int>(n);
            check(queue, ints, offs, wrap_add<cl_int>, cl_int(0),
                  [](auto f, auto l, auto of, auto ol, auto res, bc::command_queue& q) {
                      clprim::segmented_reduce(f, l, of, ol, res, q, bc::plus<cl_int>(), 0);
                  },
                  label + " plus<int>");
            const auto floats = make_data<cl_float>(n, distribution::random);
            check(queue, floats, offs, [](cl_float a, cl_float b) { return a < b ? b : a; },
                  -std::numeric_limits<cl_float>::infinity(),
                  [](auto f, auto l, auto of, auto ol, auto res, bc::command_queue& q) {
                      clprim::segmented_reduce(f, l, of, ol, res, q, bc::max<cl_float>(),
                                               -std::numeric_limits<cl_float>::infinity());
                  },
                  label + " max<float>");
        }
    }
}

BOOST_AUTO_TEST_CASE(empty_ranges_and_segments)
{
    for (int way = 0; way < 3; ++way) {
        forced_path force(way);
        const char* path = force.name;
        const std::vector<cl_uint> none;
        check_op(queue, none, std::vector<cl_uint>{0, 0, 0, 0}, clprim::reduce_op::sum, std::string(path) + " n=0");
        check_op(queue, none, std::vector<cl_uint>{0}, clprim::reduce_op::min, std::string(path) + " no segments");
        const auto data = small_values<cl_uint>(100);
        check_op(queue, data, std::vector<cl_uint>{7, 7, 7, 50, 50, 99, 99}, clprim::reduce_op::max,
                 std::string(path) + " empties and gaps");
        check_op(queue, make_data<cl_double>(1000, distribution::random), std::vector<cl_ulong>{0, 0, 1000, 1000},
                 clprim::reduce_op::min, std::string(path) + " double");
    }
}

BOOST_AUTO_TEST_CASE(malformed_offsets_stay_inside)
{
    for (int way = 0; way < 3; ++way) {
        forced_path force(way);
        const char* path = force.name;
        const std::size_t n = 100000;
        const auto data = small_values<cl_uint>(n);
        const std::string p(path);
        check_op(queue, data, std::vector<cl_uint>{50, 10, 90000, 5, 0xffffffffu, 3, cl_uint(n + 1), 0}, clprim::reduce_op::sum,
                 p + " decreasing and beyond", true);
        std::vector<cl_uint> overlapping;
        for (int i = 0; i < 200; ++i) overlapping.push_back(i % 2 ? cl_uint(n) : 0u);
        overlapping.push_back(cl_uint(n)); // [0,n) many times
        check_op(queue, data, overlapping, clprim::reduce_op::sum, p + " overlapping", true);
        check_op(queue, data, std::vector<cl_ulong>{0, ~cl_ulong(0), 1, ~cl_ulong(0) - 5, cl_ulong(n)}, clprim::reduce_op::max,
                 p + " ulong beyond", true);
    }
}

BOOST_AUTO_TEST_CASE(out_of_order_queue)
{
    bc::command_queue ooo(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    for (seg_mix mix : {seg_mix::few_large, seg_mix::fixed}) {
        const std::size_t n = 300007;
        const auto data = small_values<cl_uint>(n);
        check_op(ooo, data, offsets_from_lengths<cl_uint>(segment_lengths(mix, n, 100), 0), clprim::reduce_op::sum,
                 std::string("out-of-order ") + name_of(mix));
    }
}

BOOST_AUTO_TEST_CASE(bad_input_throws)
{
    bc::vector<cl_uint> d(100, context);
    bc::vector<cl_uint> o(11, context);
    bc::fill(o.begin(), o.end(), 0u, queue);
    BOOST_CHECK_THROW(clprim::segmented_reduce(d.begin(), d.end(), o.begin(), o.end(), d.begin() + 5, queue),
                      clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::segmented_reduce(d.begin(), d.end(), o.begin(), o.begin(), d.begin(), queue),
                      clprim::invalid_argument_error);
    BOOST_CHECK_THROW(clprim::segmented_reduce(d.begin() + 5, d.begin(), o.begin(), o.end(), d.begin(), queue),
                      clprim::invalid_argument_error);
    bc::vector<cl_uint> r(5, context); // room for 5, 10 segments
    BOOST_CHECK_THROW(clprim::segmented_reduce(d.begin(), d.end(), o.begin(), o.end(), r.begin(), queue),
                      clprim::invalid_argument_error);
}

BOOST_AUTO_TEST_SUITE_END()

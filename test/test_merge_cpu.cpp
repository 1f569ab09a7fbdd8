// The CPU merges' streams (algorithms/merge_cpu.cl, CLPRIM_MERGE_CPU_STREAMS="streams,min") forced
// on the cpu path of every device: merge_by_key (values = input positions: the stable
// permutation, the first range's equal keys first) and the comparator sort (ints by absolute
// value: many ties) against the host, with 2, 3, 4 and 8 streams taken from merges of 2 outputs
// on (so every piece boundary, empty pieces and one-sided pieces occur), few and many work-items,
// random keys, few distinct and all equal, one range empty, guards around the results; the rounds'
// pieces taken in turn, small (CLPRIM_MERGE_CPU_PIECE); the 16-key AVX-512 merge of uint keys on
// and off (CLPRIM_MERGE_CPU_VEC).
#define BOOST_TEST_MODULE clprim_merge_cpu
#include "sort_test_support.hpp"

#include <clprim/merge.hpp>
#include <clprim/sort.hpp>

using namespace clprim_test;

namespace {

BOOST_COMPUTE_FUNCTION(bool, cpu_abs_less, (int a, int b), { return abs(a) < abs(b); });

// merge_by_key of two sorted uint ranges in one buffer [g, a..., b..., out..., g] with values
// their positions; the result against std::merge (stable).
void check_merge(std::size_t n1, std::size_t n2, distribution d, bc::command_queue& q, const std::string& label)
{
    auto a = make_data<cl_uint>(n1, d, 5), b = make_data<cl_uint>(n2, d, 6);
    std::stable_sort(a.begin(), a.end());
    std::stable_sort(b.begin(), b.end());
    const std::size_t n = n1 + n2;
    std::vector<std::pair<cl_uint, cl_uint>> pa(n1), pb(n2), e(n);
    for (std::size_t i = 0; i < n1; ++i) pa[i] = {a[i], cl_uint(i)};
    for (std::size_t i = 0; i < n2; ++i) pb[i] = {b[i], cl_uint(n1 + i)};
    std::merge(pa.begin(), pa.end(), pb.begin(), pb.end(), e.begin(),
               [](const auto& x, const auto& y) { return x.first < y.first; });
    const cl_uint g = 0xfeedbeefu;
    std::vector<cl_uint> keys(2 * n + 2, g), vals(2 * n + 2, g);
    for (std::size_t i = 0; i < n1; ++i) keys[1 + i] = a[i], vals[1 + i] = cl_uint(i);
    for (std::size_t i = 0; i < n2; ++i) keys[1 + n1 + i] = b[i], vals[1 + n1 + i] = cl_uint(n1 + i);
    auto dk = to_device(keys, q), dv = to_device(vals, q);
    const auto k0 = dk.begin() + 1, v0 = dv.begin() + 1;
    clprim::merge_by_key(k0, k0 + n1, v0, k0 + n1, k0 + n, v0 + n1, k0 + n, v0 + n, q);
    const auto hk = to_host(dk, q), hv = to_host(dv, q);
    std::vector<cl_uint> ek(n), ev(n);
    for (std::size_t i = 0; i < n; ++i) ek[i] = e[i].first, ev[i] = e[i].second;
    BOOST_TEST(bit_equal(std::vector<cl_uint>(hk.begin() + 1 + n, hk.end() - 1), ek), label << ": keys");
    BOOST_TEST(bit_equal(std::vector<cl_uint>(hv.begin() + 1 + n, hv.end() - 1), ev), label << ": values");
    BOOST_TEST((hk.front() == g && hk.back() == g && hv.front() == g && hv.back() == g), label << ": guards");
}

// sort_by_key with the comparator |a| < |b| (values: positions) against std::stable_sort.
void check_comparator_sort(std::size_t n, distribution d, bc::command_queue& q, const std::string& label)
{
    auto keys = make_data<cl_int>(n, d, 9);
    for (auto& k : keys) k %= 1000;
    std::vector<std::size_t> perm(n);
    for (std::size_t i = 0; i < n; ++i) perm[i] = i;
    auto mag = [](cl_int x) { return x < 0 ? -std::int64_t(x) : std::int64_t(x); };
    std::stable_sort(perm.begin(), perm.end(), [&](std::size_t x, std::size_t y) { return mag(keys[x]) < mag(keys[y]); });
    std::vector<cl_int> framed(n + 2, 77777);
    std::vector<cl_uint> vals(n + 2, 5u);
    for (std::size_t i = 0; i < n; ++i) framed[1 + i] = keys[i], vals[1 + i] = cl_uint(i);
    auto dk = to_device(framed, q);
    auto dv = to_device(vals, q);
    clprim::sort_by_key(dk.begin() + 1, dk.begin() + 1 + n, dv.begin() + 1, q, cpu_abs_less);
    const auto hk = to_host(dk, q);
    const auto hv = to_host(dv, q);
    std::vector<cl_int> ek(n);
    std::vector<cl_uint> ev(n);
    for (std::size_t i = 0; i < n; ++i) ek[i] = keys[perm[i]], ev[i] = cl_uint(perm[i]);
    BOOST_TEST(bit_equal(std::vector<cl_int>(hk.begin() + 1, hk.end() - 1), ek), label << ": keys");
    BOOST_TEST(bit_equal(std::vector<cl_uint>(hv.begin() + 1, hv.end() - 1), ev), label << ": values (stable)");
    BOOST_TEST((hk.front() == 77777 && hk.back() == 77777 && hv.front() == 5u && hv.back() == 5u), label << ": guards");
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(merge_cpu, fixture)

BOOST_AUTO_TEST_CASE(merge_streams)
{
    env_override path("CLPRIM_MERGE_PATH", "cpu");
    for (const char* streams : {"2,2", "3,2", "4,2", "8,2", "2,256", "1"})
        for (const char* tune : {"1,16", "7,16"}) {
            env_override st("CLPRIM_MERGE_CPU_STREAMS", streams);
            env_override t("CLPRIM_MERGE_CPU_TUNE", tune);
            for (auto s : std::vector<std::pair<std::size_t, std::size_t>>{
                     {0, 5}, {5, 0}, {1, 1}, {2, 3}, {7, 9}, {17, 1000}, {1000, 17}, {300, 301}, {4095, 4097}, {30011, 65537}})
                for (auto d : {distribution::random, distribution::few_distinct, distribution::all_equal})
                    check_merge(s.first, s.second, d, queue,
                                std::string(streams) + " " + tune + " n1=" + std::to_string(s.first) +
                                    " n2=" + std::to_string(s.second) + " " + name_of(d));
        }
}

BOOST_AUTO_TEST_CASE(comparator_sort_streams)
{
    env_override path("CLPRIM_MERGE_PATH", "cpu");
    for (const char* streams : {"2,2", "3,2", "4,8", "8,2", "1"})
        for (const char* tune : {"1,16", "8,16"}) {
            env_override st("CLPRIM_MERGE_CPU_STREAMS", streams);
            env_override t("CLPRIM_MERGE_CPU_TUNE", tune);
            for (std::size_t n : {1, 2, 33, 257, 1000, 4097, 50001})
                for (auto d : {distribution::random, distribution::few_distinct, distribution::all_equal})
                    check_comparator_sort(n, d, queue,
                                          std::string(streams) + " " + tune + " n=" + std::to_string(n) + " " + name_of(d));
        }
}

// merge_cpu.cl's 16-key AVX-512 merge (uint keys alone; CLPRIM_MERGE_CPU_VEC=1, the default where
// the device compiles for AVX-512, else the streams) against the scalar streams (0): public merges
// of sizes around 16 on either side (the three-way tail) and long ones, with few distinct keys and a
// block of the first range above all of the second, and the merge sort of uint keys.
BOOST_AUTO_TEST_CASE(vector_merge)
{
    env_override path("CLPRIM_MERGE_PATH", "cpu");
    for (const char* vec : {"1", "0"}) {
        env_override v("CLPRIM_MERGE_CPU_VEC", vec);
        std::mt19937 rng{5};
        for (auto s : std::vector<std::pair<std::size_t, std::size_t>>{
                 {16, 16}, {17, 15}, {15, 300}, {16, 1000}, {1000, 16}, {31, 5000}, {300, 301}, {4095, 4097}, {65537, 30011}})
            for (cl_uint mod : {0u, 7u, 1000u}) {
                std::vector<cl_uint> a(s.first), b(s.second);
                for (auto& x : a) x = mod ? cl_uint(rng() % mod) : cl_uint(rng());
                for (auto& x : b) x = mod ? cl_uint(rng() % mod) : cl_uint(rng());
                if (mod == 1000)
                    for (std::size_t i = 0; i < a.size() / 2; ++i) a[i] = cl_uint(5000000 + i);
                std::sort(a.begin(), a.end());
                std::sort(b.begin(), b.end());
                std::vector<cl_uint> e(a.size() + b.size());
                std::merge(a.begin(), a.end(), b.begin(), b.end(), e.begin());
                auto da = to_device(a, queue), db = to_device(b, queue);
                bc::vector<cl_uint> out = to_device(std::vector<cl_uint>(e.size() + 2, 77u), queue);
                clprim::merge(da.begin(), da.end(), db.begin(), db.end(), out.begin() + 1, queue);
                const auto h = to_host(out, queue);
                const std::string label = std::string("vec ") + vec + " n1=" + std::to_string(a.size()) +
                                          " n2=" + std::to_string(b.size()) + " mod=" + std::to_string(mod);
                BOOST_TEST((std::vector<cl_uint>(h.begin() + 1, h.end() - 1) == e), label);
                BOOST_TEST((h.front() == 77u && h.back() == 77u), label << ": wrote outside the result");
                std::vector<cl_uint> all(a);
                all.insert(all.end(), b.begin(), b.end());
                std::shuffle(all.begin(), all.end(), rng);
                auto ds = to_device(all, queue);
                clprim::sort(ds.begin(), ds.end(), queue, clprim::sort_algorithm::merge);
                std::sort(all.begin(), all.end());
                BOOST_TEST((to_host(ds, queue) == all), label << " merge sort");
            }
    }
}

// The rounds' pieces taken in turn (merge_cpu_round, CLPRIM_MERGE_CPU_PIECE): pieces of 1, 7 and
// 1000 outputs, so that a piece spans pairs of runs and pieces end inside runs.
BOOST_AUTO_TEST_CASE(round_pieces)
{
    env_override path("CLPRIM_MERGE_PATH", "cpu");
    for (const char* piece : {"1", "7", "1000"}) {
        env_override pc("CLPRIM_MERGE_CPU_PIECE", piece);
        for (auto s : std::vector<std::pair<std::size_t, std::size_t>>{{0, 5}, {1, 1}, {17, 1000}, {4095, 4097}})
            check_merge(s.first, s.second, distribution::random, queue,
                        std::string("piece ") + piece + " n1=" + std::to_string(s.first) + " n2=" + std::to_string(s.second));
        for (std::size_t n : {2, 257, 4097, 50001})
            for (auto d : {distribution::random, distribution::few_distinct})
                check_comparator_sort(n, d, queue, std::string("piece ") + piece + " n=" + std::to_string(n) + " " + name_of(d));
    }
}

BOOST_AUTO_TEST_SUITE_END()

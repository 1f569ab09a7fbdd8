// clprim::mpi::sort / sort_by_key (issue #32). Run under mpirun with 1 to 4 ranks (CTest:
// test_mpi_sort_np1..4). Every rank generates every rank's input from the case's seed, so each
// rank knows the whole input, computes the global reference (a stable host sort in the library's
// order) and checks its own share [r*N/p, (r+1)*N/p) bit for bit: no gathering needed, and a
// failed check never skips a collective (BOOST_CHECK only, never REQUIRE, around the calls).
#define BOOST_TEST_MODULE clprim_mpi_sort
#include <clprim/mpi.hpp>

#include "clprim_test_fixture.hpp"

using namespace clprim_test;

namespace {

struct mpi_environment {
    mpi_environment() { MPI_Init(nullptr, nullptr); }
    ~mpi_environment() { MPI_Finalize(); }
};

int world_rank()
{
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

int world_size()
{
    int p = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    return p;
}

// How the N keys are spread over the p ranks.
enum class spread { balanced, unequal, first_only, last_only, fewer_than_ranks, none };

std::size_t local_size(spread s, int q, int p, std::size_t scale)
{
    switch (s) {
    case spread::balanced: return scale;
    case spread::unequal: return q == 1 ? 0 : (std::size_t(q) * 7919 + 13) % (2 * scale + 1); // rank 1 empty
    case spread::first_only: return q == 0 ? scale : 0;
    case spread::last_only: return q == p - 1 ? scale : 0;
    case spread::fewer_than_ranks: return q == 0 ? std::size_t(p - 1) : 0; // N = p - 1 < p
    case spread::none: return 0;
    }
    return 0;
}

// Every rank's keys, from the same seeds on every rank.
template <class K>
std::vector<std::vector<K>> global_input(spread s, distribution d, std::size_t scale, std::uint64_t seed, int p = world_size())
{
    std::vector<std::vector<K>> all(static_cast<std::size_t>(p));
    for (int q = 0; q < p; ++q) all[std::size_t(q)] = make_data<K>(local_size(s, q, p, scale), d, seed + 7777 * std::uint64_t(q));
    return all;
}

// The global positions of rank q: [q*N/p, (q+1)*N/p).
std::pair<std::size_t, std::size_t> share_of(int q, std::size_t n, int p)
{
    return {std::size_t(q) * n / std::size_t(p), std::size_t(q + 1) * n / std::size_t(p)};
}

// (key, global input index) sorted stably in order: the reference of sort and sort_by_key.
template <class K>
std::vector<std::pair<K, std::size_t>> reference(const std::vector<std::vector<K>>& all, clprim::sort_order order)
{
    std::vector<std::pair<K, std::size_t>> r;
    for (const auto& v : all)
        for (K k : v) r.emplace_back(k, r.size());
    std::stable_sort(r.begin(), r.end(), [&](const auto& a, const auto& b) {
        return order == clprim::sort_order::ascending ? total_less(a.first, b.first) : total_less(b.first, a.first);
    });
    return r;
}

template <class K>
void check_sort(spread s, distribution d, clprim::sort_order order, std::size_t scale, std::uint64_t seed,
                MPI_Comm comm = MPI_COMM_WORLD)
{
    auto& dut = device_under_test::get();
    int rank = 0, p = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    const auto all = global_input<K>(s, d, scale, seed, p); // the ranks of comm, by their rank in comm
    bc::vector<K> local = to_device(all[std::size_t(rank)], dut.queue);
    clprim::mpi::sort(local, dut.queue, comm, order);
    const std::vector<K> got = to_host(local, dut.queue);

    const auto ref = reference(all, order);
    const auto [lo, hi] = share_of(rank, ref.size(), p);
    std::vector<K> want;
    for (std::size_t i = lo; i < hi; ++i) want.push_back(ref[i].first);
    BOOST_CHECK_MESSAGE(bit_equal(got, want), "sort<" << type_label<K>() << "> " << name_of(d) << " spread " << int(s)
                                                       << (order == clprim::sort_order::ascending ? " asc" : " desc")
                                                       << " rank " << rank << "/" << p << ": " << got.size() << " keys, want "
                                                       << want.size() << ", first difference at " << first_difference(got, want));
}

// Values: the key's global input index as V (exact for the sizes here), so the check sees stability.
template <class K, class V>
void check_sort_by_key(spread s, distribution d, clprim::sort_order order, std::size_t scale, std::uint64_t seed)
{
    auto& dut = device_under_test::get();
    const int rank = world_rank(), p = world_size();
    const auto all = global_input<K>(s, d, scale, seed);
    std::size_t first_index = 0;
    for (int q = 0; q < rank; ++q) first_index += all[std::size_t(q)].size();
    std::vector<V> values(all[std::size_t(rank)].size());
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<V>(first_index + i);
    bc::vector<K> keys = to_device(all[std::size_t(rank)], dut.queue);
    bc::vector<V> vals = to_device(values, dut.queue);
    clprim::mpi::sort_by_key(keys, vals, dut.queue, MPI_COMM_WORLD, order);
    const std::vector<K> got_keys = to_host(keys, dut.queue);
    const std::vector<V> got_values = to_host(vals, dut.queue);

    const auto ref = reference(all, order);
    const auto [lo, hi] = share_of(rank, ref.size(), p);
    std::vector<K> want_keys;
    std::vector<V> want_values;
    for (std::size_t i = lo; i < hi; ++i) {
        want_keys.push_back(ref[i].first);
        want_values.push_back(static_cast<V>(ref[i].second));
    }
    BOOST_CHECK_MESSAGE(bit_equal(got_keys, want_keys) && bit_equal(got_values, want_values),
                        "sort_by_key<" << type_label<K>() << ", " << type_label<V>() << "> " << name_of(d) << " spread "
                                       << int(s) << " rank " << rank << "/" << p << ": keys differ at "
                                       << first_difference(got_keys, want_keys) << ", values at "
                                       << first_difference(got_values, want_values));
}

const clprim::sort_order both_orders[] = {clprim::sort_order::ascending, clprim::sort_order::descending};

} // namespace

BOOST_TEST_GLOBAL_FIXTURE(mpi_environment);

BOOST_AUTO_TEST_SUITE(mpi_sort)

// Every key type, both orders, unequal local sizes with an empty rank.
BOOST_AUTO_TEST_CASE_TEMPLATE(every_key_type, T, all_types)
{
    if (!type_runs_here<T>()) return;
    for (auto order : both_orders) check_sort<T>(spread::unequal, distribution::random, order, 3000, 11);
}

// The distributions on 32-bit keys (uint and float), with every spread of the keys over the ranks.
BOOST_AUTO_TEST_CASE(distributions_and_spreads)
{
    for (distribution d : all_distributions())
        for (auto order : both_orders) {
            check_sort<cl_uint>(spread::balanced, d, order, 2000, 21);
            check_sort<cl_float>(spread::unequal, d, order, 2000, 22);
        }
    for (spread s : {spread::first_only, spread::last_only, spread::fewer_than_ranks, spread::none})
        for (auto order : both_orders) {
            check_sort<cl_uint>(s, distribution::random, order, 5000, 31);
            check_sort<cl_float>(s, distribution::float_specials, order, 5000, 32);
        }
}

// Float specials in 64-bit too, many equal keys across rank boundaries (-0.0 before +0.0).
BOOST_AUTO_TEST_CASE(double_specials)
{
    if (!type_runs_here<cl_double>()) return;
    for (auto order : both_orders) check_sort<cl_double>(spread::unequal, distribution::float_specials, order, 3000, 41);
}

// Stability across ranks: few distinct keys, values are the global input indices.
BOOST_AUTO_TEST_CASE(by_key_stable)
{
    for (auto order : both_orders) {
        check_sort_by_key<cl_uint, cl_uint>(spread::unequal, distribution::few_distinct, order, 3000, 51);
        check_sort_by_key<cl_float, cl_ulong>(spread::balanced, distribution::float_specials, order, 2000, 52);
        check_sort_by_key<cl_long, cl_int>(spread::last_only, distribution::all_equal, order, 3000, 53);
    }
    if (type_runs_here<cl_double>())
        check_sort_by_key<cl_double, cl_float>(spread::unequal, distribution::random, clprim::sort_order::ascending, 2000, 54);
    check_sort_by_key<cl_ulong, cl_uint>(spread::fewer_than_ranks, distribution::random, clprim::sort_order::descending, 10, 55);
}

// The all-to-all in many rounds (a cap of 40 bytes per rank pair and round).
BOOST_AUTO_TEST_CASE(exchange_in_rounds)
{
    env_override cap("CLPRIM_MPI_ROUND_BYTES", "40");
    check_sort<cl_uint>(spread::unequal, distribution::random, clprim::sort_order::ascending, 300, 61);
    check_sort_by_key<cl_ulong, cl_uint>(spread::balanced, distribution::few_distinct, clprim::sort_order::descending, 200, 62);
}

// GPUs: 2^22 + 1 keys per rank (about 2^23 in all on 2 ranks), by key too, with the exchange in
// rounds of 1 MiB per rank pair; CPU devices skip it (the host references dominate there).
BOOST_AUTO_TEST_CASE(large_on_gpus)
{
    if (!device_under_test::get().is_gpu()) return;
    const std::size_t n = (std::size_t(1) << 22) + 1;
    check_sort<cl_uint>(spread::balanced, distribution::random, clprim::sort_order::ascending, n, 101);
    check_sort<cl_double>(spread::last_only, distribution::float_specials, clprim::sort_order::descending, n, 102);
    env_override cap("CLPRIM_MPI_ROUND_BYTES", std::to_string(1 << 20));
    check_sort_by_key<cl_ulong, cl_uint>(spread::balanced, distribution::few_distinct, clprim::sort_order::ascending, n, 103);
}

// A communicator other than MPI_COMM_WORLD: the even and the odd ranks sort separately.
BOOST_AUTO_TEST_CASE(split_communicator)
{
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank() % 2, world_rank(), &half);
    check_sort<cl_int>(spread::unequal, distribution::random, clprim::sort_order::ascending, 2500, 71 + std::uint64_t(world_rank() % 2), half);
    MPI_Comm_free(&half);
}

// An out-of-order queue: the call runs in order on the queue's companion.
BOOST_AUTO_TEST_CASE(out_of_order_queue)
{
    auto& dut = device_under_test::get();
    if (!(dut.device.get_info<cl_command_queue_properties>(CL_DEVICE_QUEUE_PROPERTIES) &
          CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)) {
        BOOST_TEST_MESSAGE("no out-of-order queues on this device");
        return;
    }
    bc::command_queue ooo(dut.context, dut.device, bc::command_queue::enable_out_of_order_execution);
    const int rank = world_rank(), p = world_size();
    const auto all = global_input<cl_uint>(spread::balanced, distribution::random, 4000, 81);
    bc::vector<cl_uint> local = to_device(all[std::size_t(rank)], dut.queue);
    dut.queue.finish();
    clprim::mpi::sort(local, ooo, MPI_COMM_WORLD);
    ooo.finish();
    const auto got = to_host(local, dut.queue);
    const auto ref = reference(all, clprim::sort_order::ascending);
    const auto [lo, hi] = share_of(rank, ref.size(), p);
    std::vector<cl_uint> want;
    for (std::size_t i = lo; i < hi; ++i) want.push_back(ref[i].first);
    BOOST_CHECK(bit_equal(got, want));
}

// Bad input on one rank (the last): that rank throws invalid_argument_error and so does every
// other rank, before anything is sent; nobody waits. Its data stays as it was.
BOOST_AUTO_TEST_CASE(bad_arguments_throw_on_every_rank)
{
    auto& dut = device_under_test::get();
    const int rank = world_rank(), p = world_size();
    const bool bad = rank == p - 1;
    bc::vector<cl_uint> keys = to_device(make_data<cl_uint>(100, distribution::random, 91 + std::uint64_t(rank)), dut.queue);
    const auto before = to_host(keys, dut.queue);
    bc::vector<cl_uint> values(bad ? 99 : 100, dut.context);
    BOOST_CHECK_THROW(clprim::mpi::sort_by_key(keys, values, dut.queue, MPI_COMM_WORLD), clprim::invalid_argument_error);
    BOOST_CHECK(bit_equal(to_host(keys, dut.queue), before));

    // keys in another context than the queue's, on the last rank
    bc::context other(dut.device);
    bc::vector<cl_uint> elsewhere(100, other);
    bc::vector<cl_uint>& mine = bad ? elsewhere : keys;
    BOOST_CHECK_THROW(clprim::mpi::sort(mine, dut.queue, MPI_COMM_WORLD), clprim::invalid_argument_error);

    // the same vector as keys and values
    bc::vector<cl_uint> fine_values(100, dut.context);
    BOOST_CHECK_THROW(clprim::mpi::sort_by_key(keys, bad ? keys : fine_values, dut.queue, MPI_COMM_WORLD),
                      clprim::invalid_argument_error);

    // and afterwards the ranks still sort together
    check_sort<cl_uint>(spread::balanced, distribution::random, clprim::sort_order::ascending, 500, 92);
}

BOOST_AUTO_TEST_SUITE_END()

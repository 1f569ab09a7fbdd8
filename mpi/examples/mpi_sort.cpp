// mpi_sort: clprim::mpi::sort over the ranks of MPI_COMM_WORLD, each rank with --n keys of its own
// on its device; prints each rank's stage times (local sort, read to host, splitter selection,
// exchange, upload + merge) and their maximum over the ranks, and checks the global result: every
// rank sorted, the ranks' boundaries in order, every rank holding exactly its share
// [r*N/p, (r+1)*N/p), and the same multiset of keys as the input (two order-free checksums
// over all ranks). With --values, sort_by_key with a value derived from each key, checked too.
// Exit code 1 when a check fails, 2 on a bad command line.
//   mpirun -np 4 examples/mpi_sort --n 2^24 [--type uint] [--order ascending]
//          [--distribution random|few|equal|sorted] [--values] [--repeat 3] [--device gpu]
// Ranks on a node with several GPUs take one each (node-local rank modulo their number).
#include "example_support.hpp"

#include <clprim/detail/host_key_order.hpp>
#include <clprim/detail/knobs.hpp>
#include <clprim/mpi.hpp>

#include <boost/program_options.hpp>

#include <cstdio>
#include <iostream>
#include <random>

namespace {

namespace bc = boost::compute;

struct options {
    std::size_t n = 0;
    std::string type = "uint", distribution = "random", device;
    clprim::sort_order order = clprim::sort_order::ascending;
    bool values = false;
    int repeat = 3;
    unsigned seed = 1;
};

std::uint64_t mix(std::uint64_t x, std::uint64_t salt)
{
    x += salt * 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// This rank's device. --device (else CLPRIM_DEVICE) naming an index or a name: that device on every
// rank. Naming a kind (gpu, cpu, accelerator), or nothing while the node has GPUs: the devices of
// that kind on this node, one per rank by the node-local rank (MPI_COMM_TYPE_SHARED) modulo their
// number, so ranks on a node with several GPUs each take their own. Nothing and no GPU: the
// default device.
bc::device rank_device(const std::string& option, int& local_rank, int& local_size)
{
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local_rank);
    MPI_Comm_size(node, &local_size);
    MPI_Comm_free(&node);
    std::string selector = option;
    if (selector.empty()) selector = clprim::detail::knob_text("CLPRIM_DEVICE").value_or("");
    cl_device_type kind = 0;
    if (selector == "gpu" || selector.empty()) kind = CL_DEVICE_TYPE_GPU;
    else if (selector == "cpu") kind = CL_DEVICE_TYPE_CPU;
    else if (selector == "accelerator") kind = CL_DEVICE_TYPE_ACCELERATOR;
    else return clprim::select_device(selector);
    std::vector<bc::device> candidates;
    for (const bc::device& d : bc::system::devices())
        if (d.type() & kind) candidates.push_back(d);
    if (candidates.empty()) return selector.empty() ? clprim::default_device() : clprim::select_device(selector);
    return candidates[std::size_t(local_rank) % candidates.size()];
}

template <class K>
std::vector<K> make_keys(const options& o, int rank)
{
    std::mt19937_64 rng(o.seed * 1000003ull + std::uint64_t(rank));
    std::vector<K> keys(o.n);
    const auto random_key = [&] {
        const std::uint64_t bits = rng();
        if constexpr (std::is_floating_point_v<K>) return K(double(std::int64_t(bits)) / 9.2e12);
        else return K(bits);
    };
    if (o.distribution == "equal") std::fill(keys.begin(), keys.end(), K(42));
    else if (o.distribution == "few") {
        const K pool[4] = {random_key(), random_key(), random_key(), random_key()};
        for (auto& k : keys) k = pool[rng() % 4];
    } else {
        for (auto& k : keys) k = random_key();
        if (o.distribution == "sorted") std::sort(keys.begin(), keys.end());
    }
    return keys;
}

// Order-free checksums of the keys (two sums of mixed ordered bits) and their count.
template <class K>
std::array<std::uint64_t, 3> checksums(const std::vector<K>& keys)
{
    std::array<std::uint64_t, 3> s{0, 0, keys.size()};
    for (K k : keys) {
        const std::uint64_t u = clprim::detail::ordered_key(k);
        s[0] += mix(u, 1);
        s[1] += mix(u, 2) >> 1;
    }
    return s;
}

template <class K>
int run(const options& o, const bc::device& device, int rank, int p)
{
    bc::context context(device);
    bc::command_queue queue(context, device);
    const std::vector<K> input = make_keys<K>(o, rank);
    std::array<std::uint64_t, 3> in_sum{}, local_in = checksums(input);
    MPI_Allreduce(local_in.data(), in_sum.data(), 3, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    const std::uint64_t N = in_sum[2];
    if (rank == 0)
        std::printf("mpi_sort: %d ranks, %zu %s keys per rank (N = %llu)%s, %s, %s\n", p, o.n, o.type.c_str(),
                    (unsigned long long)N, o.values ? " with uint values" : "",
                    o.order == clprim::sort_order::ascending ? "ascending" : "descending", o.distribution.c_str());

    bc::vector<K> keys(context);
    bc::vector<cl_uint> values(context);
    clprim::detail::mpi_sort_stats st;
    const char* names[] = {"local sort", "to host", "splitters", "exchange", "merge", "total"};
    for (int r = 0; r < o.repeat; ++r) {
        keys = bc::vector<K>(input.size(), context);
        if (!input.empty()) bc::copy(input.begin(), input.end(), keys.begin(), queue);
        if (o.values) {
            std::vector<cl_uint> v(input.size());
            for (std::size_t i = 0; i < v.size(); ++i) v[i] = cl_uint(mix(clprim::detail::ordered_key(input[i]), 3));
            values = bc::vector<cl_uint>(v.size(), context);
            if (!v.empty()) bc::copy(v.begin(), v.end(), values.begin(), queue);
        }
        queue.finish();
        MPI_Barrier(MPI_COMM_WORLD);
        if (o.values) clprim::detail::mpi_sort_by_key_timed(keys, values, queue, MPI_COMM_WORLD, o.order, st);
        else clprim::detail::mpi_sort_timed(keys, queue, MPI_COMM_WORLD, o.order, st);
        const double mine[6] = {st.local_sort * 1e3, st.to_host * 1e3, st.splitters * 1e3,
                                st.exchange * 1e3, st.merge * 1e3, st.total * 1e3};
        double worst[6];
        MPI_Reduce(mine, worst, 6, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        // every rank's line of the last run, printed by rank 0 in rank order
        const double line[10] = {mine[0], mine[1], mine[2], mine[3], mine[4], mine[5], double(input.size()),
                                 double(keys.size()), double(st.selection_rounds), double(st.exchange_rounds)};
        std::vector<double> lines(10 * std::size_t(p));
        MPI_Gather(line, 10, MPI_DOUBLE, lines.data(), 10, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (rank == 0 && r == o.repeat - 1)
            for (int q = 0; q < p; ++q) {
                const double* l = &lines[10 * std::size_t(q)];
                std::printf("  rank %d: %.0f keys in, %.0f out; ms:", q, l[6], l[7]);
                for (int i = 0; i < 6; ++i) std::printf(" %s %.3f%s", names[i], l[i], i < 5 ? "," : "");
                std::printf(" (%.0f selection rounds, %.0f exchange rounds)\n", l[8], l[9]);
            }
        if (rank == 0) {
            std::printf("run %d, max over ranks, ms:", r + 1);
            for (int i = 0; i < 6; ++i) std::printf(" %s %.3f%s", names[i], worst[i], i < 5 ? "," : "");
            std::printf("%s\n", r == 0 && o.repeat > 1 ? " (first run: kernel builds included)" : "");
            std::fflush(stdout);
        }
    }

    // The checks, on the last run's result.
    std::vector<K> out(keys.size());
    if (!out.empty()) bc::copy(keys.begin(), keys.end(), out.begin(), queue);
    std::vector<cl_uint> out_values(o.values ? values.size() : 0);
    if (!out_values.empty()) bc::copy(values.begin(), values.end(), out_values.begin(), queue);
    queue.finish();
    int failures = 0;
    for (std::size_t i = 1; i < out.size(); ++i)
        if (clprim::detail::ordered_key(out[i], o.order) < clprim::detail::ordered_key(out[i - 1], o.order)) {
            std::printf("rank %d: not sorted at %zu\n", rank, i);
            ++failures;
            break;
        }
    for (std::size_t i = 0; i < out_values.size(); ++i)
        if (out_values[i] != cl_uint(mix(clprim::detail::ordered_key(out[i]), 3))) {
            std::printf("rank %d: value %zu did not travel with its key\n", rank, i);
            ++failures;
            break;
        }
    const std::uint64_t lo = clprim::detail::mpi_share_boundary(std::uint64_t(rank), N, std::uint64_t(p));
    const std::uint64_t hi = clprim::detail::mpi_share_boundary(std::uint64_t(rank) + 1, N, std::uint64_t(p));
    if (out.size() != hi - lo) {
        std::printf("rank %d: holds %zu keys, its share is %llu\n", rank, out.size(), (unsigned long long)(hi - lo));
        ++failures;
    }
    // boundaries: every rank's (count, first, last) in the ordered domain, checked on rank 0
    std::uint64_t ends[3] = {out.size(), out.empty() ? 0 : std::uint64_t(clprim::detail::ordered_key(out.front(), o.order)),
                             out.empty() ? 0 : std::uint64_t(clprim::detail::ordered_key(out.back(), o.order))};
    std::vector<std::uint64_t> all_ends(3 * std::size_t(p));
    MPI_Gather(ends, 3, MPI_UINT64_T, all_ends.data(), 3, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    std::array<std::uint64_t, 3> out_sum{}, local_out = checksums(out);
    MPI_Reduce(local_out.data(), out_sum.data(), 3, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    int all_failures = 0;
    if (rank == 0) {
        bool have = false;
        std::uint64_t last = 0;
        for (int q = 0; q < p; ++q) {
            const std::uint64_t* e = &all_ends[3 * std::size_t(q)];
            if (!e[0]) continue;
            if (have && e[1] < last) {
                std::printf("rank %d's first key goes before the previous rank's last\n", q);
                ++failures;
            }
            have = true;
            last = e[2];
        }
        if (out_sum != in_sum) {
            std::printf("the keys after the sort are not those before (checksums differ)\n");
            ++failures;
        }
    }
    MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        std::printf("check: %s (sorted in every rank, boundaries in order, shares balanced, checksums%s)\n",
                    all_failures ? "FAILED" : "ok", o.values ? ", values with their keys" : "");
    return all_failures ? 1 : 0;
}

} // namespace

int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, p = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    namespace po = boost::program_options;
    options o;
    std::string n_text = "2^20", order_text = "ascending";
    po::options_description desc("mpi_sort options");
    desc.add_options()
        ("help,h", "show this help")
        ("n", po::value(&n_text)->default_value("2^20"), "keys per rank (2^24, 16M, ...)")
        ("type", po::value(&o.type)->default_value("uint"), "key type: int, uint, long, ulong, float, double")
        ("order", po::value(&order_text)->default_value("ascending"), "ascending or descending")
        ("distribution", po::value(&o.distribution)->default_value("random"), "random, few (4 distinct), equal, sorted")
        ("values", po::bool_switch(&o.values), "sort_by_key with a uint value per key")
        ("repeat", po::value(&o.repeat)->default_value(3), "runs (the first builds the kernels)")
        ("seed", po::value(&o.seed)->default_value(1), "random seed (each rank adds its rank)")
        ("device", po::value(&o.device)->default_value(""),
         "device: an index or a name part (every rank), or gpu, cpu, accelerator (one per rank of a node, by node-local rank); default CLPRIM_DEVICE, else the GPUs");
    int code = 0;
    try {
        po::variables_map vm;
        po::store(po::parse_command_line(argc, argv, desc), vm);
        po::notify(vm);
        if (vm.count("help")) {
            if (rank == 0) std::cout << desc << "\n";
            MPI_Finalize();
            return 0;
        }
        o.n = clprim_examples::parse_size(n_text);
        if (order_text != "ascending" && order_text != "descending")
            throw std::invalid_argument("--order takes ascending or descending");
        o.order = order_text == "ascending" ? clprim::sort_order::ascending : clprim::sort_order::descending;
        if (o.distribution != "random" && o.distribution != "few" && o.distribution != "equal" && o.distribution != "sorted")
            throw std::invalid_argument("--distribution takes random, few, equal or sorted");
        if (o.repeat < 1) throw std::invalid_argument("--repeat takes at least 1");
        clprim_examples::with_type(o.type, [](auto) {}); // the type's name is checked here
    } catch (const std::exception& e) {
        if (rank == 0) std::cerr << "mpi_sort: " << e.what() << "\n" << desc << "\n";
        MPI_Finalize();
        return 2;
    }
    try {
        int local_rank = 0, local_size = 1;
        const bc::device device = rank_device(o.device, local_rank, local_size);
        // every rank's device, printed by rank 0 in rank order
        char name[160] = {};
        const auto all = bc::system::devices();
        const long index = std::find_if(all.begin(), all.end(), [&](const bc::device& d) { return d.id() == device.id(); }) - all.begin();
        std::snprintf(name, sizeof name, "device %ld, %s (node-local rank %d of %d)", index, device.name().c_str(), local_rank,
                      local_size);
        std::vector<char> names(sizeof name * std::size_t(p));
        MPI_Gather(name, sizeof name, MPI_CHAR, names.data(), sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
        if (rank == 0)
            for (int q = 0; q < p; ++q) std::printf("rank %d on %s\n", q, &names[sizeof name * std::size_t(q)]);
        clprim_examples::with_type(o.type, [&](auto tag) { code = run<decltype(tag)>(o, device, rank, p); });
    } catch (const std::exception& e) {
        std::cerr << "mpi_sort (rank " << rank << "): " << e.what() << "\n";
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return code;
}

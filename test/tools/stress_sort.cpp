// stress_sort: the same radix sort (keys, or keys with their positions as values) over and over,
// each result checked against one host reference. For races that show once in thousands of calls
// or only while other processes load the device: run several copies at once, e.g.
//     for i in 1 2 3 4; do build/test/stress_sort --type char --pairs --n 4194307 --iterations 500 & done
// Exit status: 0 every result right, 1 a wrong result (the first few are described), 2 bad usage.
#include <clprim/clprim.hpp>

#include <boost/program_options.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <sstream>
#include <random>
#include <string>
#include <vector>

namespace bc = boost::compute;
namespace po = boost::program_options;

namespace {

struct options {
    std::string type = "uint";
    bool pairs = false;
    bool descending = false;
    std::size_t n = (std::size_t(1) << 22) + 3;
    std::size_t iterations = 100;
    unsigned seed = 1;
};

template <class K>
int run(const options& o, bc::command_queue& queue)
{
    std::mt19937_64 rng(o.seed);
    std::vector<K> keys(o.n);
    for (auto& k : keys) {
        const std::uint64_t r = rng();
        std::memcpy(&k, &r, sizeof(K));
    }
    std::vector<cl_uint> pos(o.n);
    std::iota(pos.begin(), pos.end(), 0u);
    // Reference: stable order of positions by key, compared by the sort's own order on the bits
    // that the radix sort uses (integers here; floats as their ordered bits would need more).
    std::vector<cl_uint> want_pos = pos;
    std::stable_sort(want_pos.begin(), want_pos.end(), [&](cl_uint a, cl_uint b) {
        return o.descending ? keys[b] < keys[a] : keys[a] < keys[b];
    });
    std::vector<K> want_keys(o.n);
    for (std::size_t i = 0; i < o.n; ++i) want_keys[i] = keys[want_pos[i]];

    bc::vector<K> dk(o.n, queue.get_context());
    bc::vector<cl_uint> dv(o.n, queue.get_context());
    std::vector<K> got_keys(o.n);
    std::vector<cl_uint> got_pos(o.n);
    const auto order = o.descending ? clprim::sort_order::descending : clprim::sort_order::ascending;
    int bad = 0;
    for (std::size_t it = 0; it < o.iterations; ++it) {
        bc::copy(keys.begin(), keys.end(), dk.begin(), queue);
        if (o.pairs) {
            bc::copy(pos.begin(), pos.end(), dv.begin(), queue);
            clprim::radix_sort_by_key(dk.begin(), dk.end(), dv.begin(), queue, order);
            bc::copy(dv.begin(), dv.end(), got_pos.begin(), queue);
        } else {
            clprim::radix_sort(dk.begin(), dk.end(), queue, order);
        }
        bc::copy(dk.begin(), dk.end(), got_keys.begin(), queue);
        std::size_t wrong = 0, first = o.n;
        for (std::size_t i = 0; i < o.n; ++i)
            if (got_keys[i] != want_keys[i] || (o.pairs && got_pos[i] != want_pos[i])) {
                if (first == o.n) first = i;
                ++wrong;
            }
        if (wrong != 0) {
            ++bad;
            if (bad <= 5)
                std::printf("iteration %zu: %zu of %zu wrong, first at %zu (of tile size unknown; %s)\n", it, wrong, o.n,
                            first, o.pairs ? "pairs" : "keys");
        }
    }
    std::printf("%s %s n=%zu: %d of %zu iterations wrong\n", o.type.c_str(), o.pairs ? "pairs" : "keys", o.n, bad,
                o.iterations);
    return bad == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char** argv)
{
    options o;
    po::options_description desc("stress_sort options");
    desc.add_options()("help,h", "show this help")(
        "type", po::value(&o.type)->default_value(o.type), "key type: char uchar short ushort int uint long ulong")(
        "pairs", po::bool_switch(&o.pairs), "sort_by_key with positions as values")(
        "descending", po::bool_switch(&o.descending), "descending order")(
        "n", po::value(&o.n)->default_value(o.n), "keys per sort")(
        "iterations", po::value(&o.iterations)->default_value(o.iterations), "sorts")(
        "seed", po::value(&o.seed)->default_value(o.seed), "random seed of the keys");
    po::variables_map vm;
    try {
        po::store(po::parse_command_line(argc, argv, desc), vm);
        po::notify(vm);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "stress_sort: %s\n", e.what());
        return 2;
    }
    if (vm.count("help")) {
        std::printf("%s", [&] { std::ostringstream s; s << desc; return s.str(); }().c_str());
        return 0;
    }
    bc::device device = clprim::default_device();
    bc::context context(device);
    bc::command_queue queue(context, device);
    std::printf("stress_sort on %s\n", device.name().c_str());
    if (o.type == "char") return run<cl_char>(o, queue);
    if (o.type == "uchar") return run<cl_uchar>(o, queue);
    if (o.type == "short") return run<cl_short>(o, queue);
    if (o.type == "ushort") return run<cl_ushort>(o, queue);
    if (o.type == "int") return run<cl_int>(o, queue);
    if (o.type == "uint") return run<cl_uint>(o, queue);
    if (o.type == "long") return run<cl_long>(o, queue);
    if (o.type == "ulong") return run<cl_ulong>(o, queue);
    std::fprintf(stderr, "stress_sort: unknown --type %s\n", o.type.c_str());
    return 2;
}

// sort_steps: how clprim's sorts move 16 keys, step by step, as the DEVICE computed them.
//   sort_steps [--algorithm radix|bitonic|merge|all] [--keys 7,3,12,...] [--count 16] [--seed 1] [--device gpu]
// A detail observer (clprim/detail/sort_trace.hpp) is installed around each sort; the library
// calls it between its launches and this program reads the keys (and the radix sort's tables)
// back from the device at each step:
//   radix   - the multi-pass (Zagha-Blelloch) LSD sort: per 8-bit digit pass, the digit counts of
//             every tile, the exclusively scanned table (where each tile's keys of a digit go) and
//             the keys after the scatter;
//   bitonic - the global (textbook) variant: the sequence after every pass of every stage, with
//             the pairs that pass compared;
//   merge   - the runs after the tile sort and after every merge round (tiles forced to 4 keys so
//             that 16 keys take two rounds).
// Keys are uint, sorted ascending. Bad command lines exit with code 2, a wrong result with 1.
#include "example_support.hpp"

#include <clprim/detail/sort_trace.hpp>

#include <boost/program_options.hpp>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace bc = boost::compute;
namespace cd = clprim::detail;

std::vector<cl_uint> read_uints(bc::command_queue& queue, const bc::buffer& b, std::size_t offset, std::size_t n)
{
    std::vector<cl_uint> v(n);
    if (n) queue.enqueue_read_buffer(b, offset * sizeof(cl_uint), n * sizeof(cl_uint), v.data());
    return v;
}

// "7,3,12" or "0x3a7f,12" -> keys. Throws std::invalid_argument.
std::vector<cl_uint> parse_keys(const std::string& text)
{
    std::vector<cl_uint> keys;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        std::size_t used = 0;
        unsigned long long v = 0;
        try {
            v = std::stoull(item, &used, 0);
        } catch (const std::exception&) {
            used = 0;
        }
        if (item.empty() || used != item.size() || item[0] == '-' || v > 0xffffffffull)
            throw std::invalid_argument("not a uint key: '" + item + "' in --keys " + text);
        keys.push_back(cl_uint(v));
    }
    if (keys.empty() || keys.size() > 64) throw std::invalid_argument("--keys takes 1 to 64 keys");
    return keys;
}

void print_positions(std::size_t n, int width)
{
    std::printf("  %-24s", "position");
    for (std::size_t i = 0; i < n; ++i) std::printf("%*zu ", width, i);
    std::printf("\n");
}

// One line of keys; '*' after a key that differs from prev (if given).
void print_keys(const std::string& label, const std::vector<cl_uint>& v, int width, bool hex,
                const std::vector<cl_uint>* prev = nullptr, const std::string& sep_every = "", std::size_t run = 0)
{
    std::printf("  %-24s", label.c_str());
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (run && i && i % run == 0) std::printf("%s", sep_every.c_str());
        if (hex) std::printf("%*x", width, v[i]);
        else std::printf("%*u", width, v[i]);
        std::printf("%c", prev && (*prev)[i] != v[i] ? '*' : ' ');
    }
    std::printf("\n");
}

// --- bitonic ------------------------------------------------------------------------------------
struct bitonic_printer : cd::sort_observer {
    std::vector<cl_uint> prev;
    int width = 3;
    void bitonic_pass(bc::command_queue& queue, const cd::buffer_range& keys, std::size_t k, std::size_t j) override
    {
        const std::vector<cl_uint> now = read_uints(queue, keys.buffer, keys.offset, keys.size);
        const bool mirror = 2 * j == k;
        std::string label = "k=" + std::to_string(k) + " j=" + std::to_string(j) + (mirror ? " mirror" : "");
        print_keys(label, now, width, false, &prev);
        std::printf("  %-24s", mirror ? "  compared i, i^(k-1):" : "  compared i, i+j:");
        for (std::size_t i = 0; i < now.size(); ++i) {
            if (i & (mirror ? k / 2 : j)) continue;
            const std::size_t p = mirror ? (i ^ (k - 1)) : i + j;
            if (p < now.size()) std::printf(" %zu-%zu", i, p);
        }
        std::printf("\n");
        prev = now;
    }
};

// --- merge --------------------------------------------------------------------------------------
struct merge_printer : cd::sort_observer {
    int width = 3;
    std::size_t merge_elems() const override { return 2; } // tiles of 2 work-items x 2 keys
    std::size_t merge_group() const override { return 2; }
    void merge_round(bc::command_queue& queue, unsigned round, std::size_t run, const bc::buffer& keys, std::size_t offset,
                     std::size_t n, bool in_key_form) override
    {
        // uint keys ascending: the sortable bits are the keys themselves (sort_key_order.cl).
        (void)in_key_form;
        const std::vector<cl_uint> now = read_uints(queue, keys, offset, n);
        const std::string label = round == 0 ? "tile sort (runs of " + std::to_string(run) + ")"
                                             : "round " + std::to_string(round) + " (runs of " + std::to_string(run) + ")";
        print_keys(label, now, width, false, nullptr, "|", run);
    }
};

// --- radix --------------------------------------------------------------------------------------
struct radix_printer : cd::sort_observer {
    std::vector<cl_uint> counts;
    unsigned passes = 0;
    void radix_pass(bc::command_queue& queue, radix_step step, unsigned shift, const bc::buffer& table, std::size_t tiles,
                    std::size_t radix, const bc::buffer& keys, std::size_t offset, std::size_t n, bool in_key_form) override
    {
        (void)in_key_form; // uint ascending: sortable bits == keys
        if (step == radix_step::counts) {
            ++passes;
            std::printf("\n  pass over bits %u..%u (digit = (key >> %u) & 0x%zx), %zu tile%s\n", shift, shift + 7, shift, radix - 1,
                        tiles, tiles == 1 ? "" : "s");
            counts = read_uints(queue, table, 0, radix * tiles);
            std::printf("    count  (keys per digit and tile):");
            for (std::size_t t = 0; t < tiles; ++t) {
                std::printf("%s tile %zu:", tiles > 1 ? "\n     " : "", t);
                for (std::size_t d = 0; d < radix; ++d)
                    if (counts[d * tiles + t]) std::printf(" %02zx:%u", d, counts[d * tiles + t]);
            }
            std::printf("\n");
        } else if (step == radix_step::offsets) {
            const std::vector<cl_uint> off = read_uints(queue, table, 0, radix * tiles);
            std::printf("    scan   (digit-major exclusive scan: where tile t's keys of digit d start):");
            for (std::size_t t = 0; t < tiles; ++t) {
                std::printf("%s tile %zu:", tiles > 1 ? "\n     " : "", t);
                for (std::size_t d = 0; d < radix; ++d)
                    if (counts.size() == off.size() && counts[d * tiles + t]) std::printf(" %02zx@%u", d, off[d * tiles + t]);
            }
            std::printf("\n");
        } else {
            const std::vector<cl_uint> now = read_uints(queue, keys, offset, n);
            std::printf("    scatter (keys after the pass; stable within each digit):\n   ");
            for (auto k : now) std::printf(" %04x", k);
            std::printf("\n");
        }
    }
};

bool run_one(const std::string& algo, const std::vector<cl_uint>& keys, bc::command_queue& queue)
{
    std::vector<cl_uint> want = keys;
    std::sort(want.begin(), want.end());
    bc::vector<cl_uint> d(keys.begin(), keys.end(), queue);
    cl_uint maxkey = 0;
    for (auto k : keys) maxkey = std::max(maxkey, k);
    const int width = int(std::to_string(maxkey).size()) + 1;
    if (algo == "bitonic") {
        std::printf("Bitonic sort, global (textbook) variant: one launch per pass. The flip form of the network:\n"
                    "in stage k (blocks of k) the first pass compares i with its mirror i^(k-1), the later passes\n"
                    "i with i+j (j = k/4 ... 1); the smaller key always goes to the lower index, so positions past\n"
                    "n (the padding up to a power of two) are +inf that never move. * = changed by the pass.\n");
        bitonic_printer p;
        p.width = width;
        p.prev = keys;
        print_positions(keys.size(), width);
        print_keys("input", keys, width, false);
        cd::scoped_sort_observer watch(&p);
        clprim::bitonic_sort(d.begin(), d.end(), queue, clprim::sort_order::ascending, clprim::bitonic_variant::global);
    } else if (algo == "merge") {
        std::printf("Merge sort (stable): tiles sorted in local memory, then merge-path rounds, each merging\n"
                    "pairs of runs into runs twice as long. Tiles forced to 4 keys (2 work-items x 2 keys) here.\n"
                    "| = run boundary.\n");
        setenv("CLPRIM_MERGE_PATH", "gpu", 1); // the tile + merge-path rounds path, also on CPU devices
        merge_printer p;
        p.width = width;
        print_positions(keys.size(), width);
        print_keys("input", keys, width, false);
        cd::scoped_sort_observer watch(&p);
        clprim::merge_sort(d.begin(), d.end(), queue);
    } else {
        std::printf("Radix sort (LSD, stable), the multi-pass path: per 8-bit digit, from the lowest: count the\n"
                    "digits of every tile, exclusive-scan the digit-major table of counts, scatter every key to\n"
                    "its digit's offset plus its rank among the tile's keys of that digit. A pass over a digit\n"
                    "that is the same in every key is skipped. Keys in hex.\n");
        setenv("CLPRIM_RADIX_PATH", "multipass", 1); // count / scan / scatter, not one sweep
        setenv("CLPRIM_RADIX_TUNE", "16,1", 1);      // tiles of 16 keys: more keys show several tiles
        radix_printer p;
        std::printf("  input:");
        for (auto k : keys) std::printf(" %04x", k);
        std::printf("\n");
        cd::scoped_sort_observer watch(&p);
        clprim::radix_sort(d.begin(), d.end(), queue);
        if (p.passes == 0) std::printf("  (no pass reported: every digit is the same in all keys, or no multi-pass hook)\n");
    }
    std::vector<cl_uint> got(keys.size());
    bc::copy(d.begin(), d.end(), got.begin(), queue);
    const bool ok = got == want;
    std::printf("  result equals std::sort's: %s\n\n", ok ? "yes" : "NO");
    return ok;
}

} // namespace

int main(int argc, char** argv)
{
    namespace po = boost::program_options;
    std::string algorithm, keys_text, device_sel;
    unsigned seed = 1;
    std::size_t count = 16;
    po::options_description desc("sort_steps options");
    desc.add_options()
        ("help,h", "show this help")
        ("algorithm", po::value(&algorithm)->default_value("all"), "radix, bitonic, merge or all")
        ("keys", po::value(&keys_text), "comma list of uint keys (1 to 64), e.g. 7,3,12 or 0x3a7f,0x12")
        ("count", po::value(&count)->default_value(16), "random keys when --keys is not given (1 to 64)")
        ("seed", po::value(&seed)->default_value(1), "random seed")
        ("device", po::value(&device_sel)->default_value(""), "device: gpu, cpu, an index or a name substring");
    try {
        po::variables_map vm;
        po::store(po::parse_command_line(argc, argv, desc), vm);
        po::notify(vm);
        if (vm.count("help")) {
            std::cout << "sort_steps: each step of clprim's radix, bitonic and merge sorts on a few keys, as the\n"
                         "device computed them.\n"
                      << desc << "\n";
            return 0;
        }
        if (algorithm != "radix" && algorithm != "bitonic" && algorithm != "merge" && algorithm != "all")
            throw std::invalid_argument("unknown --algorithm '" + algorithm + "' (radix, bitonic, merge, all)");
        if (count < 1 || count > 64) throw std::invalid_argument("--count takes 1 to 64");
        const bool given = vm.count("keys") != 0;
        const std::vector<cl_uint> chosen = given ? parse_keys(keys_text) : std::vector<cl_uint>();

        bc::device device = clprim_examples::pick_device(device_sel);
        bc::context context(device);
        bc::command_queue queue(context, device);
        std::cout << "device: " << device.name() << " (" << device.platform().name() << ")\n\n";

        bool ok = true;
        for (const std::string a : {"radix", "bitonic", "merge"}) {
            if (algorithm != "all" && algorithm != a) continue;
            std::vector<cl_uint> keys = chosen;
            if (!given) {
                // Radix: 16-bit keys, so two digit passes; the others: two-digit decimals.
                std::mt19937 rng(seed);
                keys.resize(count);
                for (auto& k : keys) k = a == "radix" ? rng() % 0x10000 : rng() % 100;
            }
            ok = run_one(a, keys, queue) && ok;
        }
        return ok ? 0 : 1;
    } catch (const po::error& e) { // a bad command line: message, usage, exit code 2
        std::cerr << "sort_steps: " << e.what() << "\n" << desc << "\n";
        return 2;
    } catch (const std::invalid_argument& e) {
        std::cerr << "sort_steps: " << e.what() << "\n" << desc << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "sort_steps: " << e.what() << "\n";
        return 1;
    }
}

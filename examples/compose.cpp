// compose: a user program built from clprim's pieces.
//   (1) its own kernel on clprim::workgroup_source(): every work-group compacts the values it
//       keeps to the front of its segment (a stream compaction written by hand with
//       clprim_wg_exclusive_scan_uint) and writes its running sum (clprim_wg_inclusive_scan_uint);
//   (2) a chain on one queue with no host round trip in the middle: copy_if, a max-scan
//       (bc::max<cl_uint>()) of what it kept, and device-side reductions of that scan (sum, and
//       bit_xor), read back once at the end.
// Every result is checked against the host.
//   compose [--n 1M] [--wg 200] [--seed 1] [--device gpu]
// Exit status: 0 every result right, 1 a wrong result or a runtime failure, 2 a bad command line.
#include "example_support.hpp"

#include <boost/compute/lambda.hpp>
#include <boost/program_options.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace {

namespace bc = boost::compute;

// The user's kernel, put after clprim::workgroup_source(). WG (a build option of this program)
// is the work-group size, any size, not only a power of two; CLPRIM_WG_SCRATCH(WG) sizes the
// scratch the building blocks need. Work-items past n take part in the scans (every item of the
// group must call them) with nothing to keep.
const char* user_kernel = R"CLC(
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void keep_multiples_of_3(__global const uint* in, uint n, __global uint* kept, __global uint* kept_per_group,
                         __global uint* running_sum)
{
    __local uint scratch[CLPRIM_WG_SCRATCH(WG)];
    const uint gid = (uint)get_global_id(0);
    const uint x = gid < n ? in[gid] : 0u;
    const uint keep = (gid < n && x % 3u == 0u) ? 1u : 0u;

    // Where this item's value goes among the group's kept values: the count of kept ones before it.
    uint total;
    const uint pos = clprim_wg_exclusive_scan_uint(keep, scratch, &total);
    if (keep) kept[get_group_id(0) * WG + pos] = x;
    if (get_local_id(0) == 0) kept_per_group[get_group_id(0)] = total;

    // The same scratch again right away: each building block begins and ends with its barriers.
    const uint s = clprim_wg_inclusive_scan_uint(x, scratch);
    if (gid < n) running_sum[gid] = s;
}
)CLC";

template <class T>
std::vector<T> read(const bc::vector<T>& v, std::size_t count, bc::command_queue& queue)
{
    std::vector<T> h(count);
    if (count) bc::copy(v.begin(), v.begin() + count, h.begin(), queue);
    return h;
}

// Prints one line per check; returns ok.
bool report(const char* what, bool ok)
{
    std::printf("  %-58s %s\n", what, ok ? "ok" : "WRONG");
    return ok;
}

} // namespace

int main(int argc, char** argv)
{
    namespace po = boost::program_options;
    std::string n_text, device_sel;
    std::size_t wg = 200;
    unsigned seed = 1;
    po::options_description desc("compose options");
    desc.add_options()
        ("help,h", "show this help")
        ("n", po::value(&n_text)->default_value("1M"), "number of values (2^20, 1M, 1000000)")
        ("wg", po::value(&wg)->default_value(200), "work-group size of the program's own kernel (any, up to the device's maximum)")
        ("seed", po::value(&seed)->default_value(1), "random seed")
        ("device", po::value(&device_sel)->default_value(""), "device: gpu, cpu, an index or a name substring");
    try {
        po::variables_map vm;
        if (!clprim_examples::parse_options(desc, argc, argv, vm)) return 0;
        const std::size_t n = clprim_examples::parse_size(n_text);
        if (n > 0xffffffffu) throw std::invalid_argument("--n: at most 2^32 - 1 values (the kernel indexes with uint)");
        if (wg == 0) throw std::invalid_argument("--wg: at least 1");
        const bc::device device = clprim_examples::pick_device(device_sel);
        if (wg > device.max_work_group_size())
            throw std::invalid_argument("--wg: at most " + std::to_string(device.max_work_group_size()) + " on " +
                                        device.name());

        bc::context context(device);
        bc::command_queue queue(context, device);
        std::vector<cl_uint> host(n);
        std::mt19937_64 rng(seed);
        for (auto& x : host) x = cl_uint(rng() % 1000000);
        bc::vector<cl_uint> values(std::max<std::size_t>(n, 1), context);
        if (n) bc::copy(host.begin(), host.end(), values.begin(), queue);
        std::printf("compose: n = %zu on %s\n", n, device.name().c_str());
        bool ok = true;

        // (1) The program's own kernel on the building blocks.
        {
            const std::size_t groups = (n + wg - 1) / wg;
            bc::program program =
                bc::program::create_with_source(clprim::workgroup_source() + user_kernel, context);
            try {
                program.build("-DWG=" + std::to_string(wg));
            } catch (const bc::opencl_error&) {
                std::cerr << "compose: the kernel failed to build:\n" << program.build_log() << "\n";
                return 1;
            }
            bc::kernel kernel = program.create_kernel("keep_multiples_of_3");
            bc::vector<cl_uint> kept(std::max<std::size_t>(groups * wg, 1), context);
            bc::vector<cl_uint> kept_per_group(std::max<std::size_t>(groups, 1), context);
            bc::vector<cl_uint> running(std::max<std::size_t>(n, 1), context);
            kernel.set_args(values.get_buffer(), cl_uint(n), kept.get_buffer(), kept_per_group.get_buffer(),
                            running.get_buffer());
            if (groups) queue.enqueue_1d_range_kernel(kernel, 0, groups * wg, wg);
            const auto h_kept = read(kept, groups * wg, queue);
            const auto h_counts = read(kept_per_group, groups, queue);
            const auto h_running = read(running, n, queue);
            bool compaction_ok = true, sums_ok = true;
            for (std::size_t g = 0; g < groups; ++g) {
                std::size_t c = 0;
                cl_uint sum = 0;
                for (std::size_t i = g * wg; i < std::min(n, (g + 1) * wg); ++i) {
                    sum += host[i];
                    if (h_running[i] != sum) sums_ok = false;
                    if (host[i] % 3 == 0 && (c >= wg || h_kept[g * wg + c++] != host[i])) compaction_ok = false;
                }
                if (h_counts[g] != c) compaction_ok = false;
            }
            std::printf("(1) own kernel on clprim::workgroup_source(), work-groups of %zu:\n", wg);
            ok &= report("per-group compaction (clprim_wg_exclusive_scan_uint)", compaction_ok);
            ok &= report("per-group running sum (clprim_wg_inclusive_scan_uint)", sums_ok);
        }

        // (2) copy_if -> max-scan -> device-side reductions, on one queue; one read at the end.
        {
            using bc::lambda::_1;
            bc::vector<cl_uint> kept(std::max<std::size_t>(n, 1), context);
            bc::vector<cl_uint> results(2, context);
            // copy_if waits for its count (the host needs it to size what follows); nothing else waits.
            const std::size_t count = clprim::copy_if(values.begin(), values.begin() + n, kept.begin(), queue,
                                                      _1 % 3 == 0);
            clprim::inclusive_scan(kept.begin(), kept.begin() + count, kept.begin(), queue, bc::max<cl_uint>(), 0u);
            clprim::reduce(kept.begin(), kept.begin() + count, results.begin(), queue);
            clprim::reduce(kept.begin(), kept.begin() + count, results.begin() + 1, queue, bc::bit_xor<cl_uint>(), 0u);
            const auto h_scan = read(kept, count, queue);
            const auto h_results = read(results, 2, queue);

            std::vector<cl_uint> expected;
            for (cl_uint x : host)
                if (x % 3 == 0) expected.push_back(x);
            const bool count_ok = count == expected.size();
            cl_uint run = 0, sum = 0, x_or = 0;
            for (auto& x : expected) {
                run = std::max(run, x);
                x = run;
                sum += run;
                x_or ^= run;
            }
            std::printf("(2) copy_if -> inclusive_scan(max) -> reduce (device-side) on one queue:\n");
            ok &= report(("copy_if: kept " + std::to_string(count) + " multiples of 3").c_str(), count_ok);
            ok &= report("max-scan of the kept values", count_ok && h_scan == expected);
            ok &= report(("sum of the max-scan (device-side): " + std::to_string(h_results[0])).c_str(),
                         count_ok && h_results[0] == sum);
            ok &= report("bit_xor of the max-scan (device-side, bc::bit_xor)", count_ok && h_results[1] == x_or);
        }
        std::printf("%s\n", ok ? "all results agree with the host" : "WRONG results");
        return ok ? 0 : 1;
    } catch (const po::error& e) { // a bad command line: message, usage, exit code 2
        std::cerr << "compose: " << e.what() << "\n" << desc << "\n";
        return 2;
    } catch (const std::invalid_argument& e) {
        std::cerr << "compose: " << e.what() << "\n" << desc << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "compose: " << e.what() << "\n";
        return 1;
    }
}

// scan_steps: how the two classic work-group scans work, step by step, as the device computes
// them on a 16-element input; then the device-wide scans on a large n beside Boost.Compute.
//   scan_steps [--n 2^24] [--repeat 10] [--seed 1] [--device gpu]
// The step kernel below records every intermediate array; it mirrors the building blocks of
// primitives/workgroup_scan.cl (without their bank-conflict padding, so that positions read
// naturally), and the same program runs those building blocks to show they agree.
#include "example_support.hpp"

#include <clprim/detail/kernel_registry.hpp>
#include <clprim/detail/primitives_kernels.hpp>

#include <boost/compute/algorithm/copy.hpp>
#include <boost/compute/algorithm/exclusive_scan.hpp>
#include <boost/program_options.hpp>

#include <cstdio>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace {

namespace bc = boost::compute;

const char* step_kernel_source = R"CLC(
// One work-group of n items (n a power of two), one element each. Rows of n values are written
// to the trace arrays after every step.
__kernel void trace_scans(__global const uint* in, __global uint* hs_trace, __global uint* up_trace,
                          __global uint* down_trace, __global uint* lib, __local uint* a,
                          __local uint* b, __local uint* s)
{
    const uint lid = get_local_id(0), n = get_local_size(0);
    uint row;

    // Hillis & Steele: in step d every element adds the one 2^d to its left (double-buffered:
    // read from one array, write the other, so no one reads a value being overwritten).
    uint x = in[lid];
    a[lid] = x;
    hs_trace[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    __local uint* src = a;
    __local uint* dst = b;
    row = 1;
    for (uint d = 1; d < n; d <<= 1, ++row) {
        if (lid >= d) x = src[lid - d] + x;
        dst[lid] = x;
        hs_trace[row * n + lid] = x;
        barrier(CLK_LOCAL_MEM_FENCE);
        __local uint* t = src; src = dst; dst = t;
    }

    // Blelloch up-sweep: a reduction tree built in place; node b = a + d takes a's sum.
    s[lid] = in[lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    row = 0;
    for (uint d = 1; d < n; d <<= 1, ++row) {
        if (lid < n / (2 * d)) {
            const uint ia = (2 * lid + 1) * d - 1, ib = ia + d;
            s[ib] = s[ia] + s[ib];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        up_trace[row * n + lid] = s[lid];
        barrier(CLK_LOCAL_MEM_FENCE); /* read before the next step writes */
    }
    // Clear the root, then the down-sweep: the left child gets the node's prefix, the right
    // child the prefix plus the left child's old sum.
    if (lid == 0) s[n - 1] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    down_trace[lid] = s[lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    row = 1;
    for (uint d = n >> 1; d >= 1; d >>= 1, ++row) {
        if (lid < n / (2 * d)) {
            const uint ia = (2 * lid + 1) * d - 1, ib = ia + d;
            const uint left = s[ia];
            s[ia] = s[ib];
            s[ib] = s[ib] + left;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        down_trace[row * n + lid] = s[lid];
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    // The library's building blocks on the same input.
    uint total;
    lib[lid] = wg_inclusive_scan_hs_uint(in[lid], a);
    lib[n + lid] = wg_exclusive_scan_blelloch_uint(in[lid], s, &total);
}
)CLC";

void print_row(const char* label, const std::vector<cl_uint>& rows, std::size_t r, std::size_t n,
               const std::vector<cl_uint>* prev_rows = nullptr, std::size_t prev_r = 0)
{
    std::printf("  %-22s", label);
    for (std::size_t i = 0; i < n; ++i) {
        const cl_uint v = rows[r * n + i];
        const bool changed = prev_rows && (*prev_rows)[prev_r * n + i] != v;
        std::printf("%4u%c", v, changed ? '*' : ' ');
    }
    std::printf("\n");
}

std::size_t log2_of(std::size_t n)
{
    std::size_t l = 0;
    while ((std::size_t(1) << l) < n) ++l;
    return l;
}

} // namespace

int main(int argc, char** argv)
{
    namespace po = boost::program_options;
    namespace cd = clprim::detail;
    std::string n_text, device_sel;
    int repeat = 10;
    unsigned seed = 1;
    po::options_description desc("scan_steps options");
    desc.add_options()
        ("help,h", "show this help")
        ("n", po::value(&n_text)->default_value("2^24"), "elements for the timed scans (2^24, 16M, ...)")
        ("repeat", po::value(&repeat)->default_value(10), "timed repeats (median reported)")
        ("seed", po::value(&seed)->default_value(1), "random seed")
        ("device", po::value(&device_sel)->default_value(""), "device: gpu, cpu, an index or a name substring");
    try {
        po::variables_map vm;
        if (!clprim_examples::parse_options(desc, argc, argv, vm)) return 0;
        const std::size_t big_n = clprim_examples::parse_size(n_text);
        bc::device device = clprim_examples::pick_device(device_sel);
        bc::context context(device);
        bc::command_queue queue(context, device);
        std::cout << "device: " << device.name() << " (" << device.platform().name() << ")\n\n";

        // --- 16 elements, step by step -----------------------------------------------------
        const std::size_t n = 16, steps = log2_of(n);
        std::mt19937 rng(seed);
        std::vector<cl_uint> input(n);
        for (auto& x : input) x = rng() % 10;

        cd::register_kernel_source("scan_steps_trace.cl", step_kernel_source);
        bc::program program = cd::primitives_program(context, {"workgroup_scan.cl", "scan_steps_trace.cl"}, "");
        bc::kernel k = program.create_kernel("trace_scans");
        bc::vector<cl_uint> d_in(input.begin(), input.end(), queue);
        bc::vector<cl_uint> d_hs((steps + 1) * n, context), d_up(steps * n, context), d_down((steps + 1) * n, context),
            d_lib(2 * n, context);
        k.set_arg(0, d_in.get_buffer());
        k.set_arg(1, d_hs.get_buffer());
        k.set_arg(2, d_up.get_buffer());
        k.set_arg(3, d_down.get_buffer());
        k.set_arg(4, d_lib.get_buffer());
        const std::size_t scratch = 2 * n + ((2 * n) >> 5) + 1; // WG_SCAN_SCRATCH(n)
        k.set_arg(5, bc::local_buffer<cl_uint>(scratch));
        k.set_arg(6, bc::local_buffer<cl_uint>(n));
        k.set_arg(7, bc::local_buffer<cl_uint>(scratch));
        queue.enqueue_1d_range_kernel(k, 0, n, n);
        std::vector<cl_uint> hs(d_hs.size()), up(d_up.size()), down(d_down.size()), lib(d_lib.size());
        bc::copy(d_hs.begin(), d_hs.end(), hs.begin(), queue);
        bc::copy(d_up.begin(), d_up.end(), up.begin(), queue);
        bc::copy(d_down.begin(), d_down.end(), down.begin(), queue);
        bc::copy(d_lib.begin(), d_lib.end(), lib.begin(), queue);

        std::printf("Positions:              ");
        for (std::size_t i = 0; i < n; ++i) std::printf("%4zu ", i);
        std::printf("\n\nHillis & Steele inclusive scan: in step d, x[i] += x[i - 2^d] for i >= 2^d (* = changed)\n");
        print_row("input", hs, 0, n);
        for (std::size_t s = 1; s <= steps; ++s) {
            const std::string label = "step " + std::to_string(s - 1) + " (+x[i-" + std::to_string(1u << (s - 1)) + "])";
            print_row(label.c_str(), hs, s, n, &hs, s - 1);
        }
        std::printf("  %zu steps, each touching every element: O(n log n) additions.\n\n", steps);

        std::printf("Blelloch exclusive scan, up-sweep: x[i] += x[i - d] for i = 2d-1, 4d-1, ... (a sum tree)\n");
        print_row("input", hs, 0, n);
        for (std::size_t s = 0; s < steps; ++s) {
            const std::string label = "d = " + std::to_string(1u << s);
            print_row(label.c_str(), up, s, n, s == 0 ? &hs : &up, s == 0 ? 0 : s - 1);
        }
        std::printf("Down-sweep: clear the root; then left child <- node, node <- node + old left child\n");
        print_row("root cleared", down, 0, n, &up, steps - 1);
        for (std::size_t s = 1; s <= steps; ++s) {
            const std::string label = "d = " + std::to_string(n >> s);
            print_row(label.c_str(), down, s, n, &down, s - 1);
        }
        std::printf("  2 x %zu steps, O(n) additions in all.\n\n", steps);

        // The traces against the host and against the library's building blocks.
        std::vector<cl_uint> incl(n), excl(n);
        cl_uint sum = 0;
        for (std::size_t i = 0; i < n; ++i) {
            excl[i] = sum;
            sum += input[i];
            incl[i] = sum;
        }
        bool ok = true;
        for (std::size_t i = 0; i < n; ++i) {
            ok = ok && hs[steps * n + i] == incl[i] && down[steps * n + i] == excl[i];
            ok = ok && lib[i] == incl[i] && lib[n + i] == excl[i];
        }
        std::printf("Host scans agree with the traces and with wg_inclusive_scan_hs_uint / "
                    "wg_exclusive_scan_blelloch_uint: %s\n\n", ok ? "yes" : "NO");

        // --- device-wide scans on a large n ------------------------------------------------
        std::vector<cl_uint> host(big_n);
        for (auto& x : host) x = rng();
        std::vector<cl_uint> expect(big_n);
        sum = 0;
        for (std::size_t i = 0; i < big_n; ++i) {
            expect[i] = sum;
            sum += host[i];
        }
        bc::vector<cl_uint> in(big_n, context), out(big_n, context);
        if (big_n) bc::copy(host.begin(), host.end(), in.begin(), queue);
        std::vector<cl_uint> got(big_n);
        std::printf("Exclusive scan of %zu uint (median of %d):\n", big_n, repeat);
        auto row = [&](const char* name, const std::function<void()>& run) {
            run();
            if (big_n) bc::copy(out.begin(), out.end(), got.begin(), queue);
            queue.finish();
            const double ms = clprim_examples::median_ms(queue, run, repeat);
            const double gbps = ms > 0 ? 2.0 * double(big_n) * sizeof(cl_uint) / (ms * 1e6) : 0;
            std::printf("  %-26s %9.3f ms %8.1f GB/s  %s\n", name, ms, gbps, got == expect ? "correct" : "WRONG");
            ok = ok && got == expect;
        };
        using clprim::scan_algorithm;
        row("clprim hillis_steele", [&] { clprim::exclusive_scan(in.begin(), in.end(), out.begin(), queue, 0u, scan_algorithm::hillis_steele); });
        row("clprim blelloch", [&] { clprim::exclusive_scan(in.begin(), in.end(), out.begin(), queue, 0u, scan_algorithm::blelloch); });
        row("clprim fast", [&] { clprim::exclusive_scan(in.begin(), in.end(), out.begin(), queue, 0u, scan_algorithm::fast); });
        row("boost::compute::exclusive_scan", [&] { bc::exclusive_scan(in.begin(), in.end(), out.begin(), queue); });
        std::printf("  (GB/s: the n elements read plus the n written, per second)\n");
        return ok ? 0 : 1;
    } catch (const po::error& e) { // a bad command line: message, usage, exit code 2
        std::cerr << "scan_steps: " << e.what() << "\n" << desc << "\n";
        return 2;
    } catch (const std::invalid_argument& e) {
        std::cerr << "scan_steps: " << e.what() << "\n" << desc << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "scan_steps: " << e.what() << "\n";
        return 1;
    }
}

// reduce_progression: the reduce0..reduce6 story on the device at hand. Runs every variant of
// clprim::reduce on the same data, beside boost::compute::reduce, and prints time per call
// (median of --repeat calls, each drained the same way), effective bandwidth, speedup over
// reduce0 and whether the result matched the host. Before the table: the time of the very first
// reduce call of the process (program build, or load from the binary cache, included); run it
// twice with a fresh CLPRIM_CACHE_DIR to see the cold and the warm cache.
#include "example_support.hpp"

#include <clprim/detail/binary_cache.hpp>

#include <boost/compute/algorithm/reduce.hpp>
#include <boost/compute/functional/operator.hpp>
#include <boost/compute/functional/math.hpp>
#include <boost/program_options.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <random>
#include <type_traits>

namespace {

namespace bc = boost::compute;
using clprim::reduce_op;
using clprim::reduce_variant;

struct options {
    std::size_t n = 0;
    reduce_op op = reduce_op::sum;
    std::string op_name;
    int repeat = 20;
};

template <class T>
std::vector<T> make_input(std::size_t n)
{
    std::mt19937_64 rng(2024);
    std::vector<T> v(n);
    for (auto& x : v) {
        if constexpr (std::is_integral_v<T>) x = static_cast<T>(rng());
        else x = static_cast<T>(std::uniform_real_distribution<double>(-1000.0, 1000.0)(rng));
    }
    return v;
}

// Whether got is the reduction of v: exact for integers (sums wrap) and float min/max; float sums
// against a long-double sum within a rounding-error bound.
template <class T>
bool matches_host(T got, const std::vector<T>& v, reduce_op op)
{
    if (op == reduce_op::sum) {
        if constexpr (std::is_integral_v<T>) {
            using U = std::make_unsigned_t<T>;
            U s = 0;
            for (T x : v) s = U(s + U(x));
            return got == T(s);
        } else {
            long double s = 0, a = 0;
            for (T x : v) {
                s += x;
                a += std::fabs(static_cast<long double>(x));
            }
            const long double eps = std::numeric_limits<T>::epsilon();
            return std::fabs(got - s) <= eps * a * (2 * std::sqrt(static_cast<long double>(v.size())) + 16) + eps * std::fabs(s);
        }
    }
    T r = op == reduce_op::min ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest();
    for (T x : v) r = op == reduce_op::min ? std::min(r, x) : std::max(r, x);
    return got == r;
}

template <class T>
T boost_compute_reduce(bc::vector<T>& d, reduce_op op, bc::command_queue& queue)
{
    T r{};
    if (op == reduce_op::sum) bc::reduce(d.begin(), d.end(), &r, bc::plus<T>(), queue);
    else if (op == reduce_op::min) bc::reduce(d.begin(), d.end(), &r, bc::min<T>(), queue);
    else bc::reduce(d.begin(), d.end(), &r, bc::max<T>(), queue);
    return r;
}

template <class T>
void run(const options& o, bc::command_queue& queue)
{
    const auto host = make_input<T>(o.n);
    bc::vector<T> d(o.n, queue.get_context());
    if (o.n) bc::copy(host.begin(), host.end(), d.begin(), queue);
    queue.finish();

    // The very first reduce call of this process: program build or binary-cache load included.
    clprim::detail::binary_cache::reset_stats();
    const auto t0 = std::chrono::steady_clock::now();
    const T first = clprim::reduce(d.begin(), d.end(), queue, o.op, reduce_variant::fast);
    const double first_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const auto st = clprim::detail::binary_cache::stats();
    std::printf("first reduce call: %.1f ms (binary cache %s: %lu hits, %lu misses, %lu stores; dir %s)%s\n", first_ms,
                clprim::detail::binary_cache::enabled_for(queue.get_device()) ? "on" : "off", st.hits, st.misses, st.stores,
                clprim::detail::binary_cache::directory().c_str(), matches_host(first, host, o.op) ? "" : "  WRONG RESULT");

    const double bytes = double(o.n) * sizeof(T);
    std::printf("\n%-16s %12s %10s %10s %8s\n", "variant", "ms/call", "GB/s", "vs reduce0", "correct");
    struct row {
        const char* name;
        reduce_variant v;
    };
    const row rows[] = {{"reduce0", reduce_variant::reduce0}, {"reduce1", reduce_variant::reduce1},
                        {"reduce2", reduce_variant::reduce2}, {"reduce3", reduce_variant::reduce3},
                        {"reduce4", reduce_variant::reduce4}, {"reduce5", reduce_variant::reduce5},
                        {"reduce6", reduce_variant::reduce6}, {"fast", reduce_variant::fast}};
    double base_ms = 0;
    auto print = [&](const char* name, double ms, bool ok) {
        if (base_ms == 0) base_ms = ms;
        std::printf("%-16s %12.4f %10.1f %9.2fx %8s\n", name, ms, ms > 0 ? bytes / ms / 1e6 : 0.0,
                    ms > 0 ? base_ms / ms : 0.0, ok ? "yes" : "NO");
        std::fflush(stdout);
    };
    for (const auto& r : rows) {
        T got{};
        const double ms = clprim_examples::median_ms(queue, [&] { got = clprim::reduce(d.begin(), d.end(), queue, o.op, r.v); },
                                                     o.repeat);
        print(r.name, ms, matches_host(got, host, o.op));
    }
    T got{};
    const double ms = clprim_examples::median_ms(queue, [&] { got = boost_compute_reduce(d, o.op, queue); }, o.repeat);
    print("boost::compute", ms, o.n == 0 || matches_host(got, host, o.op));
}

} // namespace

int main(int argc, char** argv)
{
    namespace po = boost::program_options;
    std::string n_text, type, op, device;
    options o;
    po::options_description desc("reduce_progression: every clprim::reduce variant beside boost::compute::reduce");
    desc.add_options()
        ("help,h", "show this help")
        ("n", po::value(&n_text)->default_value("2^24"), "elements (2^26, 64M or 67108864)")
        ("type", po::value(&type)->default_value("uint"), "int, uint, long, ulong, float or double")
        ("op", po::value(&op)->default_value("sum"), "sum, min or max")
        ("repeat", po::value(&o.repeat)->default_value(20), "timed calls per row (the median is shown)")
        ("device", po::value(&device)->default_value(""), "gpu, cpu, an index or a name substring (default: CLPRIM_DEVICE)");
    po::variables_map vm;
    try {
        if (!clprim_examples::parse_options(desc, argc, argv, vm)) return 0;
        o.n = clprim_examples::parse_size(n_text);
        if (op == "sum") o.op = reduce_op::sum;
        else if (op == "min") o.op = reduce_op::min;
        else if (op == "max") o.op = reduce_op::max;
        else throw std::invalid_argument("unknown op '" + op + "' (sum, min, max)");
        if (o.repeat < 1) throw std::invalid_argument("--repeat must be at least 1");
        clprim_examples::with_type(type, [](auto) {}); // an unknown --type is a usage error
    } catch (const std::exception& e) {
        std::cerr << "reduce_progression: " << e.what() << "\n" << desc << "\n";
        return 2;
    }
    try {
        const bc::device dev = clprim_examples::pick_device(device);
        bc::context ctx(dev);
        bc::command_queue queue(ctx, dev);
        std::cout << "device: " << dev.name() << " (" << dev.platform().name() << ", driver " << dev.driver_version()
                  << ")\nn = " << o.n << ", type " << type << ", op " << op << ", median of " << o.repeat << " calls\n";
        clprim_examples::with_type(type, [&](auto tag) { run<decltype(tag)>(o, queue); });
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "reduce_progression: " << e.what() << "\n";
        return 1;
    }
}

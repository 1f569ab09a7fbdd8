// histogram_demo: draws the histogram of a distribution (generated on the host, counted on the
// device by clprim::histogram) as a text bar chart.
//   histogram_demo --distribution normal --bins 30 --n 2^22 [--device gpu] [--lower -4 --upper 4]
#include "example_support.hpp"

#include <boost/program_options.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>
#include <vector>

int main(int argc, char** argv)
{
    namespace po = boost::program_options;
    namespace bc = boost::compute;
    std::string dist_name, n_text, device_sel;
    std::size_t bins = 30;
    double lower = 0, upper = 0;
    unsigned width = 60, seed = 1;
    po::options_description desc("histogram_demo options");
    desc.add_options()
        ("help,h", "show this help")
        ("distribution", po::value(&dist_name)->default_value("normal"), "uniform, normal or exponential")
        ("bins", po::value(&bins)->default_value(30), "number of bins")
        ("n", po::value(&n_text)->default_value("1M"), "number of values (2^20, 1M, 1000000)")
        ("lower", po::value(&lower), "lower bound (default: by distribution)")
        ("upper", po::value(&upper), "upper bound, exclusive (default: by distribution)")
        ("width", po::value(&width)->default_value(60), "characters of the longest bar")
        ("seed", po::value(&seed)->default_value(1), "random seed")
        ("device", po::value(&device_sel)->default_value(""), "device: gpu, cpu, an index or a name substring");
    try {
        po::variables_map vm;
        if (!clprim_examples::parse_options(desc, argc, argv, vm)) return 0;
        const std::size_t n = clprim_examples::parse_size(n_text);
        // Default ranges cover nearly all of each distribution's mass.
        double def_lo = 0, def_hi = 1;
        if (dist_name == "normal") def_lo = -4, def_hi = 4;
        else if (dist_name == "exponential") def_lo = 0, def_hi = 8;
        else if (dist_name != "uniform") throw std::invalid_argument("unknown distribution '" + dist_name + "' (uniform, normal, exponential)");
        if (!vm.count("lower")) lower = def_lo;
        if (!vm.count("upper")) upper = def_hi;

        std::vector<cl_float> data(n);
        std::mt19937_64 rng(seed);
        if (dist_name == "uniform") {
            std::uniform_real_distribution<float> d(0.f, 1.f);
            for (auto& x : data) x = d(rng);
        } else if (dist_name == "normal") {
            std::normal_distribution<float> d(0.f, 1.f);
            for (auto& x : data) x = d(rng);
        } else {
            std::exponential_distribution<float> d(1.f);
            for (auto& x : data) x = d(rng);
        }

        const bc::device device = clprim_examples::pick_device(device_sel);
        bc::context context(device);
        bc::command_queue queue(context, device);
        bc::vector<cl_float> d_data(n, context);
        if (n) bc::copy(data.begin(), data.end(), d_data.begin(), queue);
        bc::vector<cl_uint> d_counts(bins, 0u, queue); // histogram adds: start from zero
        clprim::histogram(d_data.begin(), d_data.end(), d_counts.begin(), bins, cl_float(lower), cl_float(upper), queue);
        std::vector<cl_uint> counts(bins);
        bc::copy(d_counts.begin(), d_counts.end(), counts.begin(), queue);

        std::cout << dist_name << ", n = " << n << ", " << bins << " bins over [" << lower << ", " << upper << ") on "
                  << device.name() << "\n";
        const cl_uint top = counts.empty() ? 0 : *std::max_element(counts.begin(), counts.end());
        std::size_t inside = 0;
        for (std::size_t b = 0; b < bins; ++b) {
            inside += counts[b];
            const double lo = lower + (upper - lower) * double(b) / double(bins);
            const std::size_t len = top ? std::size_t(double(counts[b]) * width / top + 0.5) : 0;
            char label[64];
            std::snprintf(label, sizeof label, "%10.4g %10u ", lo, counts[b]);
            std::cout << label << std::string(len, '#') << "\n";
        }
        std::cout << inside << " of " << n << " values in range, " << (n - inside) << " outside\n";
        return 0;
    } catch (const po::error& e) { // a bad command line: message, usage, exit code 2
        std::cerr << "histogram_demo: " << e.what() << "\n" << desc << "\n";
        return 2;
    } catch (const std::invalid_argument& e) {
        std::cerr << "histogram_demo: " << e.what() << "\n" << desc << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "histogram_demo: " << e.what() << "\n";
        return 1;
    }
}

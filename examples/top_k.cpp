// top_k: the k highest scores of n (random floats, each with its player id) picked on the device
// by clprim::top_k_by_key, printed, and checked against std::stable_sort on the host (ties: the
// lower id first). Exit code 1 if they differ.
//   top_k [--n 2^24] [--k 100] [--show 10] [--device gpu] [--seed 1]
// Without --n: 2^24 scores, 2^20 on CPU devices.
#include "example_support.hpp"

#include <clprim/top_k.hpp>

#include <boost/program_options.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

int main(int argc, char** argv)
{
    namespace po = boost::program_options;
    namespace bc = boost::compute;
    std::string n_text, device_sel;
    std::size_t k = 100, show = 10;
    unsigned seed = 1;
    po::options_description desc("top_k options");
    desc.add_options()
        ("help,h", "show this help")
        ("n", po::value(&n_text), "number of scores (2^24, 16M, ...; default 2^24, 2^20 on CPU devices)")
        ("k", po::value(&k)->default_value(100), "how many of the highest to pick")
        ("show", po::value(&show)->default_value(10), "how many to print")
        ("seed", po::value(&seed)->default_value(1), "random seed")
        ("device", po::value(&device_sel)->default_value(""), "device: gpu, cpu, an index or a name substring");
    try {
        po::variables_map vm;
        if (!clprim_examples::parse_options(desc, argc, argv, vm)) return 0;
        const bc::device device = clprim_examples::pick_device(device_sel);
        const bool cpu = (device.type() & CL_DEVICE_TYPE_CPU) != 0;
        const std::size_t n = vm.count("n") ? clprim_examples::parse_size(n_text) : std::size_t(1) << (cpu ? 20 : 24);
        if (k > n) throw std::invalid_argument("--k is larger than --n");

        // Scores with many ties (rounded to 1/100), ids 0..n-1.
        std::vector<cl_float> scores(n);
        std::vector<cl_uint> ids(n);
        std::mt19937_64 rng(seed);
        std::normal_distribution<float> d(500.f, 100.f);
        for (auto& s : scores) s = std::round(d(rng) * 100.f) / 100.f;
        std::iota(ids.begin(), ids.end(), 0u);

        bc::context context(device);
        bc::command_queue queue(context, device);
        bc::vector<cl_float> d_scores(n, context), top_scores(k, context);
        bc::vector<cl_uint> d_ids(n, context), top_ids(k, context);
        if (n) {
            bc::copy(scores.begin(), scores.end(), d_scores.begin(), queue);
            bc::copy(ids.begin(), ids.end(), d_ids.begin(), queue);
        }
        clprim::top_k_by_key(d_scores.begin(), d_scores.end(), d_ids.begin(), k, top_scores.begin(), top_ids.begin(), queue);
        std::vector<cl_float> got_scores(k);
        std::vector<cl_uint> got_ids(k);
        if (k) {
            bc::copy(top_scores.begin(), top_scores.end(), got_scores.begin(), queue);
            bc::copy(top_ids.begin(), top_ids.end(), got_ids.begin(), queue);
        }

        // The host's answer: ids by score, highest first, ties by id.
        std::vector<cl_uint> order(ids);
        std::stable_sort(order.begin(), order.end(), [&](cl_uint a, cl_uint b) { return scores[a] > scores[b]; });
        bool ok = true;
        for (std::size_t i = 0; i < k; ++i) ok = ok && got_ids[i] == order[i] && got_scores[i] == scores[order[i]];

        std::cout << "the " << k << " highest of " << n << " scores on " << device.name() << ":\n";
        for (std::size_t i = 0; i < std::min(k, show); ++i)
            std::printf("%4zu. id %10u  score %.2f\n", i + 1, got_ids[i], double(got_scores[i]));
        std::cout << (ok ? "matches the host's stable sort\n" : "DIFFERS from the host's stable sort\n");
        return ok ? 0 : 1;
    } catch (const po::error& e) { // a bad command line: message, usage, exit code 2
        std::cerr << "top_k: " << e.what() << "\n" << desc << "\n";
        return 2;
    } catch (const std::invalid_argument& e) {
        std::cerr << "top_k: " << e.what() << "\n" << desc << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "top_k: " << e.what() << "\n";
        return 1;
    }
}

// group_by: a database-style GROUP BY on the device, from clprim's pieces: a few million
// (key, value) records (a customer id and an amount), sort_by_key to bring equal keys together,
// then reduce_by_key to sum every group's amounts: one (key, total) per distinct key. The
// groups are checked against a host std::map, and the largest are printed as a short table.
//   group_by [--n 4M] [--keys 100000] [--seed 1] [--device gpu]
// Exit status: 0 every group right, 1 a wrong result or a runtime failure, 2 a bad command line.
#include "example_support.hpp"

#include <boost/program_options.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace bc = boost::compute;

int main(int argc, char** argv)
{
    namespace po = boost::program_options;
    std::string n_text, device_sel;
    std::size_t distinct = 100000;
    unsigned seed = 1;
    po::options_description desc("group_by options");
    desc.add_options()
        ("help,h", "show this help")
        ("n", po::value(&n_text)->default_value("4M"), "records (e.g. 4M, 2^22, 1000)")
        ("keys", po::value(&distinct)->default_value(100000), "distinct customer ids to draw from")
        ("seed", po::value(&seed)->default_value(1), "random seed")
        ("device", po::value(&device_sel)->default_value(""), "device: gpu, cpu, an index or a name substring");
    try {
        po::variables_map vm;
        if (!clprim_examples::parse_options(desc, argc, argv, vm)) return 0;
        const std::size_t n = clprim_examples::parse_size(n_text);
        if (distinct == 0) throw std::invalid_argument("--keys: at least 1");
        const bc::device device = clprim_examples::pick_device(device_sel);
        bc::context context(device);
        bc::command_queue queue(context, device);
        std::printf("group_by: %zu records over up to %zu customer ids on %s\n", n, distinct, device.name().c_str());

        // The records: customer ids and amounts in cents.
        std::mt19937 rng(seed);
        std::vector<cl_uint> ids(n), cents(n);
        for (std::size_t i = 0; i < n; ++i) {
            ids[i] = cl_uint(rng() % distinct);
            cents[i] = cl_uint(rng() % 10000);
        }
        bc::vector<cl_uint> d_ids(ids.begin(), ids.end(), queue), d_cents(cents.begin(), cents.end(), queue);
        bc::vector<cl_uint> g_ids(std::max<std::size_t>(n, 1), context);
        bc::vector<cl_ulong> g_totals(std::max<std::size_t>(n, 1), context);
        bc::vector<cl_ulong> d_cents64(std::max<std::size_t>(n, 1), context);
        queue.finish();

        const auto t0 = std::chrono::steady_clock::now();
        // GROUP BY id: sort the records by id (values follow their keys, stably) ...
        clprim::sort_by_key(d_ids.begin(), d_ids.end(), d_cents.begin(), queue);
        // ... widen the amounts so that totals cannot wrap (keys and values may differ in type) ...
        bc::copy(d_cents.begin(), d_cents.end(), d_cents64.begin(), queue);
        // ... and sum every run of equal ids: one (id, total) per group.
        const std::size_t groups = clprim::reduce_by_key(d_ids.begin(), d_ids.end(), d_cents64.begin(), g_ids.begin(),
                                                         g_totals.begin(), queue);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

        std::vector<cl_uint> h_ids(groups);
        std::vector<cl_ulong> h_totals(groups);
        if (groups) {
            bc::copy(g_ids.begin(), g_ids.begin() + groups, h_ids.begin(), queue);
            bc::copy(g_totals.begin(), g_totals.begin() + groups, h_totals.begin(), queue);
        }
        // The host's GROUP BY.
        std::map<cl_uint, cl_ulong> expected;
        for (std::size_t i = 0; i < n; ++i) expected[ids[i]] += cents[i];
        bool ok = groups == expected.size();
        std::size_t g = 0;
        for (auto it = expected.begin(); ok && it != expected.end(); ++it, ++g)
            ok = h_ids[g] == it->first && h_totals[g] == it->second;
        std::printf("%zu groups in %.2f ms (sort_by_key + widen + reduce_by_key): %s\n", groups, ms,
                    ok ? "match the host" : "WRONG");

        // The five largest totals.
        std::vector<std::size_t> order(groups);
        for (std::size_t i = 0; i < groups; ++i) order[i] = i;
        const std::size_t top = std::min<std::size_t>(5, groups);
        std::partial_sort(order.begin(), order.begin() + top, order.end(),
                          [&](std::size_t a, std::size_t b) { return h_totals[a] > h_totals[b]; });
        std::printf("  %-12s %14s\n", "customer", "total");
        for (std::size_t i = 0; i < top; ++i)
            std::printf("  %-12u %11llu.%02llu\n", h_ids[order[i]], (unsigned long long)(h_totals[order[i]] / 100),
                        (unsigned long long)(h_totals[order[i]] % 100));
        return ok ? 0 : 1;
    } catch (const po::error& e) {
        std::cerr << "group_by: " << e.what() << "\n" << desc << "\n";
        return 2;
    } catch (const std::invalid_argument& e) {
        std::cerr << "group_by: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "group_by: " << e.what() << "\n";
        return 1;
    }
}

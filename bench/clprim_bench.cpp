// clprim_bench: runs every registered bench case (bench_<component>.cpp) over a range of sizes,
// beside Boost.Compute's counterpart in the same run, and writes a table, CSV and JSON.
#include "bench_framework.hpp"

#include <boost/program_options.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

namespace clprim_bench {

std::vector<registration>& registry()
{
    static std::vector<registration> r;
    return r;
}

namespace {

std::vector<std::string> split(const std::string& s, char sep)
{
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string part;
    while (std::getline(ss, part, sep))
        if (!part.empty()) out.push_back(part);
    return out;
}

// "2^10:2^26" (powers of four steps: every second power of two), "2^10:2^26:1" (every power of
// two), or a comma list "1M,2^24,67108864".
std::vector<std::size_t> parse_sizes(const std::string& text)
{
    using clprim_examples::parse_size;
    if (text.find(':') != std::string::npos) {
        const auto parts = split(text, ':');
        if (parts.size() < 2 || parts.size() > 3) throw std::invalid_argument("bad --sizes '" + text + "'");
        std::size_t lo = parse_size(parts[0]), hi = parse_size(parts[1]);
        const int step = parts.size() == 3 ? std::stoi(parts[2]) : 2;
        if (lo == 0 || step < 1) throw std::invalid_argument("bad --sizes '" + text + "'");
        std::vector<std::size_t> out;
        for (std::size_t n = lo; n <= hi; n <<= step) out.push_back(n);
        return out;
    }
    std::vector<std::size_t> out;
    for (const auto& p : split(text, ',')) out.push_back(parse_size(p));
    return out;
}

// Against the Boost.Compute row of the same case, group, type and n (each case measures its own).
double ratio_of(const result& r, const std::vector<result>& rs)
{
    for (const auto& b : rs)
        if (b.baseline && b.bench_case == r.bench_case && b.group == r.group && b.type == r.type && b.n == r.n &&
            r.ms > 0)
            return b.ms / r.ms;
    return 0;
}

} // namespace
} // namespace clprim_bench

int main(int argc, char** argv)
{
    namespace po = boost::program_options;
    using namespace clprim_bench;
    std::string sizes_text, only, device_sel, csv_path, json_path;
    int repeat = 10;
    po::options_description desc("clprim_bench options");
    desc.add_options()
        ("help,h", "show this help")
        ("sizes", po::value(&sizes_text)->default_value("2^10:2^26"), "sizes: lo:hi[:log2 step] or a comma list (2^20,16M,...)")
        ("only", po::value(&only)->default_value(""), "comma list of cases to run (default: all)")
        ("list", "list the cases")
        ("repeat", po::value(&repeat)->default_value(10), "timed repeats per row (median reported)")
        ("device", po::value(&device_sel)->default_value(""), "device: gpu, cpu, an index or a name substring")
        ("csv", po::value(&csv_path)->default_value("clprim_bench.csv"), "CSV output file")
        ("json", po::value(&json_path)->default_value("clprim_bench.json"), "JSON output file");
    po::variables_map vm;
    try {
        po::store(po::parse_command_line(argc, argv, desc), vm);
        po::notify(vm);
    } catch (const std::exception& e) {
        std::cerr << "clprim_bench: " << e.what() << "\n" << desc << "\n";
        return 2;
    }
    if (vm.count("help")) {
        std::cout << desc << "\n";
        return 0;
    }
    if (vm.count("list")) {
        for (const auto& r : registry()) std::cout << r.name << "\n";
        return 0;
    }
    try {
        const auto dev = clprim_examples::pick_device(device_sel);
        bc::context ctx(dev);
        context c{dev, ctx, bc::command_queue(ctx, dev), parse_sizes(sizes_text), repeat, {}};
        std::cout << "device: " << dev.name() << " (" << dev.platform().name() << ", driver " << dev.driver_version()
                  << ")\n";
        const auto wanted = split(only, ',');
        for (const auto& reg : registry()) {
            if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), reg.name) == wanted.end()) continue;
            std::cout << "== " << reg.name << std::endl;
            const std::size_t first = c.results.size();
            reg.fn(c);
            for (std::size_t i = first; i < c.results.size(); ++i) c.results[i].bench_case = reg.name;
            for (std::size_t i = first; i < c.results.size(); ++i) {
                const auto& r = c.results[i];
                char line[256];
                std::snprintf(line, sizeof line, "%-12s %-22s %-7s %11zu %10.4f ms %9.1f GB/s %8.3f Gkeys/s %7.2fx%s\n",
                              r.group.c_str(), r.name.c_str(), r.type.c_str(), r.n, r.ms, r.gbps, r.gkeys,
                              ratio_of(r, c.results), r.correct ? "" : "  WRONG");
                std::cout << line << std::flush;
            }
        }
        std::ofstream csv(csv_path);
        csv << "group,name,type,n,ms,gbps,gkeys,ratio_vs_boost_compute,baseline,correct\n";
        for (const auto& r : c.results)
            csv << r.group << ',' << r.name << ',' << r.type << ',' << r.n << ',' << r.ms << ',' << r.gbps << ','
                << r.gkeys << ',' << ratio_of(r, c.results) << ',' << r.baseline << ',' << r.correct << '\n';
        std::ofstream json(json_path);
        json << "{\n  \"device\": \"" << dev.name() << "\",\n  \"driver\": \"" << dev.driver_version()
             << "\",\n  \"results\": [\n";
        for (std::size_t i = 0; i < c.results.size(); ++i) {
            const auto& r = c.results[i];
            json << "    {\"group\": \"" << r.group << "\", \"name\": \"" << r.name << "\", \"type\": \"" << r.type
                 << "\", \"n\": " << r.n << ", \"ms\": " << r.ms << ", \"gbps\": " << r.gbps
                 << ", \"gkeys\": " << r.gkeys << ", \"ratio_vs_boost_compute\": " << ratio_of(r, c.results)
                 << ", \"baseline\": " << (r.baseline ? "true" : "false")
                 << ", \"correct\": " << (r.correct ? "true" : "false") << "}"
                 << (i + 1 < c.results.size() ? ",\n" : "\n");
        }
        json << "  ]\n}\n";
        bool all_correct = true;
        for (const auto& r : c.results) all_correct = all_correct && r.correct;
        std::cout << "wrote " << csv_path << " and " << json_path << "\n";
        return all_correct ? 0 : 1;
    } catch (const std::exception& e) {
        std::cerr << "clprim_bench: " << e.what() << "\n";
        return 1;
    }
}

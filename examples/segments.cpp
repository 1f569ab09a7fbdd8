// segments: a random sparse matrix in CSR form (row_ptr, col, val; the entries of each row in
// random column order), then on the device every row sorted by column index
// (clprim::segmented_sort_by_key, keys = col, values = val) and every row summed
// (clprim::segmented_reduce over val, row_ptr as the offsets); both checked on the host.
// Exit code 0 if everything matches, 1 if not, 2 on a bad command line.
//   segments --rows 100000 --mean 16 [--device gpu] [--seed 1]
#include "example_support.hpp"

#include <boost/program_options.hpp>

#include <algorithm>
#include <chrono>
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
    std::string rows_text, device_sel;
    std::size_t mean = 16, cols = 1000000;
    unsigned seed = 1;
    po::options_description desc("segments options");
    desc.add_options()
        ("help,h", "show this help")
        ("rows", po::value(&rows_text)->default_value("100000"), "matrix rows (2^17, 100K, 100000)")
        ("mean", po::value(&mean)->default_value(16), "mean entries per row (row lengths 0 .. 2*mean, and a few long rows)")
        ("cols", po::value(&cols)->default_value(1000000), "matrix columns")
        ("seed", po::value(&seed)->default_value(1), "random seed")
        ("device", po::value(&device_sel)->default_value(""), "device: gpu, cpu, an index or a name substring");
    try {
        po::variables_map vm;
        if (!clprim_examples::parse_options(desc, argc, argv, vm)) return 0;
        const std::size_t rows = clprim_examples::parse_size(rows_text);
        if (cols == 0 || cols > 0xffffffffu) throw std::invalid_argument("--cols must be 1 .. 2^32 - 1");

        // CSR with rows of 0 .. 2*mean entries and one row in 1000 a hundred times longer (the
        // long rows take the device-wide path), columns distinct within a row, in random order.
        std::mt19937_64 rng(seed);
        std::vector<cl_uint> row_ptr{0}, col;
        std::vector<cl_float> val;
        for (std::size_t r = 0; r < rows; ++r) {
            std::size_t len = rng() % (2 * mean + 1);
            if (rng() % 1000 == 0) len *= 100;
            len = std::min(len, cols);
            std::vector<cl_uint> c(len);
            for (auto& x : c) x = cl_uint(rng() % cols);
            std::sort(c.begin(), c.end());
            c.erase(std::unique(c.begin(), c.end()), c.end());
            std::shuffle(c.begin(), c.end(), rng);
            for (cl_uint x : c) {
                col.push_back(x);
                val.push_back(cl_float(int(rng() % 201) - 100) / 4); // quarter steps: sums are exact
            }
            if (std::uint64_t(col.size()) > 0xffffffffu) throw std::invalid_argument("too many entries for cl_uint offsets");
            row_ptr.push_back(cl_uint(col.size()));
        }
        const std::size_t nnz = col.size();

        const bc::device device = clprim_examples::pick_device(device_sel);
        bc::context context(device);
        bc::command_queue queue(context, device);
        bc::vector<cl_uint> d_ptr(row_ptr.size(), context), d_col(std::max<std::size_t>(nnz, 1), context);
        bc::vector<cl_float> d_val(std::max<std::size_t>(nnz, 1), context), d_sum(std::max<std::size_t>(rows, 1), context);
        bc::copy(row_ptr.begin(), row_ptr.end(), d_ptr.begin(), queue);
        if (nnz) {
            bc::copy(col.begin(), col.end(), d_col.begin(), queue);
            bc::copy(val.begin(), val.end(), d_val.begin(), queue);
        }
        queue.finish();
        const auto t0 = std::chrono::steady_clock::now();
        clprim::segmented_sort_by_key(d_col.begin(), d_col.begin() + nnz, d_val.begin(), d_ptr.begin(), d_ptr.end(), queue);
        queue.finish();
        const auto t1 = std::chrono::steady_clock::now();
        clprim::segmented_reduce(d_val.begin(), d_val.begin() + nnz, d_ptr.begin(), d_ptr.end(), d_sum.begin(), queue);
        queue.finish();
        const auto t2 = std::chrono::steady_clock::now();

        std::vector<cl_uint> got_col(nnz);
        std::vector<cl_float> got_val(nnz), got_sum(rows);
        if (nnz) {
            bc::copy(d_col.begin(), d_col.begin() + nnz, got_col.begin(), queue);
            bc::copy(d_val.begin(), d_val.begin() + nnz, got_val.begin(), queue);
        }
        if (rows) bc::copy(d_sum.begin(), d_sum.begin() + rows, got_sum.begin(), queue);

        // Host: each row sorted by column (columns are distinct, so the order is unique), sums.
        std::size_t bad_rows = 0, bad_sums = 0, longest = 0;
        for (std::size_t r = 0; r < rows; ++r) {
            const std::size_t b = row_ptr[r], e = row_ptr[r + 1];
            longest = std::max(longest, e - b);
            std::vector<std::pair<cl_uint, cl_float>> want;
            for (std::size_t i = b; i < e; ++i) want.push_back({col[i], val[i]});
            std::sort(want.begin(), want.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
            bool ok = true;
            float sum = 0;
            for (std::size_t i = b; i < e; ++i) {
                ok = ok && got_col[i] == want[i - b].first && got_val[i] == want[i - b].second;
                sum += val[i];
            }
            bad_rows += !ok;
            bad_sums += got_sum[r] != sum;
        }
        auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
        std::printf("CSR matrix: %zu rows x %zu columns, %zu entries (mean %.1f per row, longest %zu) on %s\n", rows, cols,
                    nnz, rows ? double(nnz) / double(rows) : 0.0, longest, device.name().c_str());
        std::printf("rows sorted by column (segmented_sort_by_key): %.3f ms, %zu rows wrong\n", ms(t0, t1), bad_rows);
        std::printf("row sums (segmented_reduce):                  %.3f ms, %zu sums wrong\n", ms(t1, t2), bad_sums);
        const std::size_t show = std::min<std::size_t>(rows, 3);
        for (std::size_t r = 0; r < show; ++r) {
            std::printf("  row %zu:", r);
            for (std::size_t i = row_ptr[r]; i < std::min<std::size_t>(row_ptr[r + 1], row_ptr[r] + 6); ++i)
                std::printf(" (%u, %g)", got_col[i], double(got_val[i]));
            std::printf("%s  sum %g\n", row_ptr[r + 1] - row_ptr[r] > 6 ? " ..." : "", double(got_sum[r]));
        }
        return bad_rows == 0 && bad_sums == 0 ? 0 : 1;
    } catch (const po::error& e) { // a bad command line: message, usage, exit code 2
        std::cerr << "segments: " << e.what() << "\n" << desc << "\n";
        return 2;
    } catch (const std::invalid_argument& e) {
        std::cerr << "segments: " << e.what() << "\n" << desc << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "segments: " << e.what() << "\n";
        return 1;
    }
}

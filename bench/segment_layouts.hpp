#pragma once
// The segment layouts of the `segments` bench case (bench_segments.cpp) and of its CUB reference
// (cuda_reference/cub_segments.cu, which includes this file): offsets (num_segments + 1 entries,
// from 0) of n elements. segments_<L>: equal lengths L (the last one shorter); power_law:
// lengths 1 .. 2^20 with P(len > x) ~ 1/x (mean about ln(2^20) ~ 14); one_huge: 50 000 empty
// segments, one of n, 50 000 empty ones.
#include <algorithm>
#include <cstddef>
#include <random>
#include <string>
#include <vector>

inline std::vector<unsigned> segment_layout_offsets(const std::string& layout, std::size_t n)
{
    std::vector<unsigned> o{0};
    auto add = [&](std::size_t len) { o.push_back(unsigned(std::min<std::size_t>(o.back() + len, n))); };
    if (layout == "one_huge") {
        for (int i = 0; i < 50000; ++i) add(0);
        add(n);
        for (int i = 0; i < 50000; ++i) add(0);
    } else if (layout == "power_law") {
        std::mt19937_64 rng(29);
        std::uniform_real_distribution<double> u(0.0, 1.0);
        while (o.back() < n) add(std::size_t(1.0 / (1.0 - u(rng) * (1.0 - 1.0 / 1048576.0))));
    } else {
        const std::size_t len = std::stoul(layout.substr(std::string("segments_").size()));
        while (o.back() < n) add(len);
    }
    return o;
}

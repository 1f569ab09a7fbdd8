#pragma once
// Host side of the multi-device sort's merge (multi_device_merge.cpp): k sorted runs lying one
// after another in host memory, compared in the sorts' key order (clprim/detail/host_key_order.hpp)
// with ties broken by run index, then position, so that merging them is stable. co_rank finds
// where output position m cuts every run (the exact split: what precedes m in the merged order);
// host_merge merges all runs into an output array with threads over balanced pieces.
// Private to the algorithms layer.
#include <clprim/detail/element_type.hpp>
#include <clprim/sort_types.hpp>

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

namespace clprim {
namespace detail {

struct sorted_runs {
    const char* keys = nullptr;
    const char* values = nullptr; // null: keys alone
    element_type key_type = element_type::uint32;
    std::size_t value_bytes = 0;       // bytes of one value
    std::vector<std::size_t> starts;   // run r is [starts[r], starts[r + 1]); starts.back() = n
    sort_order order = sort_order::ascending;

    std::size_t runs() const { return starts.empty() ? 0 : starts.size() - 1; }
    std::size_t size() const { return starts.empty() ? 0 : starts.back(); }
};

// For output position m (0..n), the number of elements each run contributes to the first m
// outputs of the stable merge (the counts add up to m).
std::vector<std::size_t> co_rank(const sorted_runs& runs, std::size_t m);

// The split vectors of output positions bounds[0..] (each a co_rank), computed by `threads`
// threads.
std::vector<std::vector<std::size_t>> co_ranks(const sorted_runs& runs, const std::vector<std::size_t>& bounds,
                                               std::size_t threads);

// Merges output positions [first, last) into out_keys/out_values (indexed from 0 = output
// position first), given the splits at first and last.
void merge_piece(const sorted_runs& runs, const std::vector<std::size_t>& from, const std::vector<std::size_t>& to,
                 char* out_keys, char* out_values);

// Output positions [first, last) of the merge into out_keys/out_values (indexed from 0 = output
// position first), cut into `pieces` merged by `threads` threads.
void host_merge(const sorted_runs& runs, std::size_t first, std::size_t last, char* out_keys, char* out_values,
                std::size_t pieces, std::size_t threads);

// Whether n keys at `keys` are in the order (threads share the pass).
bool keys_sorted(const char* keys, element_type key_type, sort_order order, std::size_t n, std::size_t threads);

// memcpy with up to `threads` threads (large copies only).
void parallel_copy(void* dst, const void* src, std::size_t bytes, std::size_t threads);

// memcpy by a team of threads that live as long as the team (the staging copies of the transfer
// pipeline: a copy per block, so thread starts would cost as much as the copy). copy() is called
// by one thread at a time; that thread takes a part itself.
class copy_team {
public:
    explicit copy_team(std::size_t threads);
    ~copy_team();
    copy_team(const copy_team&) = delete;
    copy_team& operator=(const copy_team&) = delete;
    void copy(void* dst, const void* src, std::size_t bytes);

private:
    void part(std::size_t i);
    std::vector<std::thread> threads_;
    std::mutex mutex_;
    std::condition_variable start_, done_;
    std::size_t generation_ = 0, pending_ = 0, parts_ = 1;
    bool quit_ = false;
    char* dst_ = nullptr;
    const char* src_ = nullptr;
    std::size_t bytes_ = 0;
};

} // namespace detail
} // namespace clprim

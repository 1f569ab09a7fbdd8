// Exact global splitters for clprim::mpi::sort by distributed selection (issue #32).
//
// Every rank holds a sorted run. The key at global position t (0-based, in the sorted order of all
// N keys) is the largest value s whose global count of keys below it is at most t. The ranks find
// it bit by bit from the top, in the ordered domain of the keys (ordered_key: the unsigned integer
// whose order is the sort's order, floats included): candidate = s | bit, each rank counts its keys
// below the candidate (a binary search in its run), one MPI_Allreduce sums the counts of all p - 1
// candidates, and the bit is kept where the sum stays at most t. 8, 16, 32 or 64 rounds by key
// width. Equal keys are then cut by (rank, index): with L keys below s in all and an exclusive scan
// of each rank's count of keys equal to s over the ranks (MPI_Exscan), a rank sends to the upper
// side its equal keys past t - L - (equal keys on lower ranks). So every rank ends with exactly
// its share, and equal keys keep their (rank, index) order: the sort is stable across ranks.
#include "mpi_sort_internal.hpp"

#include <clprim/detail/host_key_order.hpp>

#include <algorithm>
#include <cstring>

namespace clprim {
namespace detail {

namespace {

template <class T>
struct type_tag {
    using type = T;
};

// Calls f(type_tag<K>{}) with the host type of the key type (by width, float, signed).
template <class F>
void with_host_key_type(element_type t, const char* who, F&& f)
{
    const std::size_t bytes = size_of(t);
    if (is_float(t)) {
        if (bytes == 4) return f(type_tag<float>{});
        if (bytes == 8) return f(type_tag<double>{});
    } else if (is_signed(t)) {
        if (bytes == 1) return f(type_tag<std::int8_t>{});
        if (bytes == 2) return f(type_tag<std::int16_t>{});
        if (bytes == 4) return f(type_tag<std::int32_t>{});
        if (bytes == 8) return f(type_tag<std::int64_t>{});
    } else {
        if (bytes == 1) return f(type_tag<std::uint8_t>{});
        if (bytes == 2) return f(type_tag<std::uint16_t>{});
        if (bytes == 4) return f(type_tag<std::uint32_t>{});
        if (bytes == 8) return f(type_tag<std::uint64_t>{});
    }
    throw unsupported_error(std::string(who) + ": no host key order for keys of type " + cl_name(t));
}


template <class K>
std::vector<std::uint64_t> split_points(const host_run& run, sort_order order, const std::vector<std::uint64_t>& targets,
                                        MPI_Comm comm, unsigned& rounds, const char* who)
{
    using U = ordered_key_t<K>;
    const unsigned char* bytes = run.data();
    const std::size_t n = run.size;
    const auto key_at = [&](std::size_t i) {
        K k;
        std::memcpy(&k, bytes + i * sizeof(K), sizeof(K));
        return ordered_key(k, order);
    };
    // Keys of the run below v (strictly: lower_bound) or at most v (upper_bound), in the ordered domain.
    const auto count = [&](U v, bool upper) {
        std::size_t lo = 0, hi = n;
        while (lo < hi) {
            const std::size_t mid = lo + (hi - lo) / 2;
            const U k = key_at(mid);
            if (upper ? !(v < k) : k < v) lo = mid + 1;
            else hi = mid;
        }
        return std::uint64_t(lo);
    };

    const std::size_t m = targets.size();
    std::vector<U> s(m, U(0));
    // [0, m): global count below s[r]; [m, 2m): this rank's counts below the candidates; [2m, 3m): their sums
    std::vector<std::uint64_t> counts(3 * m, 0);
    std::uint64_t* const below_s = counts.data();
    std::uint64_t* const local = below_s + m;
    std::uint64_t* const global = local + m;
    for (int bit = int(8 * sizeof(U)) - 1; bit >= 0; --bit) {
        for (std::size_t r = 0; r < m; ++r) local[r] = count(U(s[r] | U(U(1) << bit)), false);
        mpi_check(MPI_Allreduce(local, global, int(m), MPI_UINT64_T, MPI_SUM, comm), "MPI_Allreduce", who);
        for (std::size_t r = 0; r < m; ++r)
            if (global[r] <= targets[r]) {
                s[r] = U(s[r] | U(U(1) << bit));
                below_s[r] = global[r];
            }
        ++rounds;
    }

    // Ties: this rank's keys equal to each splitter, and those of the lower ranks before them.
    std::vector<std::uint64_t> lower(m), equal(m), before(m, 0);
    for (std::size_t r = 0; r < m; ++r) {
        lower[r] = count(s[r], false);
        equal[r] = count(s[r], true) - lower[r];
    }
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    mpi_check(MPI_Exscan(equal.data(), before.data(), int(m), MPI_UINT64_T, MPI_SUM, comm), "MPI_Exscan", who);
    if (rank == 0) std::fill(before.begin(), before.end(), 0); // MPI leaves rank 0's result undefined

    std::vector<std::uint64_t> splits(m + 2, 0);
    splits[m + 1] = n;
    for (std::size_t r = 0; r < m; ++r) {
        const std::uint64_t ahead = below_s[r] + before[r]; // global positions before this rank's equal keys
        const std::uint64_t take = targets[r] <= ahead ? 0 : std::min(targets[r] - ahead, equal[r]);
        splits[r + 1] = lower[r] + take;
    }
    return splits;
}

} // namespace

void mpi_check(int rc, const char* call, const char* who)
{
    if (rc == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    throw error(std::string(who) + ": " + call + " failed: " + std::string(text, std::size_t(len)));
}

std::vector<std::uint64_t> mpi_split_points(const host_run& run, element_type key_type, sort_order order,
                                            const std::vector<std::uint64_t>& targets, MPI_Comm comm,
                                            unsigned& rounds, const char* who)
{
    std::vector<std::uint64_t> splits;
    with_host_key_type(key_type, who, [&](auto tag) {
        splits = split_points<typename decltype(tag)::type>(run, order, targets, comm, rounds, who);
    });
    return splits;
}

// The key type check the sort makes before anything collective (unsupported_error).
void mpi_require_host_key_order(element_type key_type, const char* who)
{
    with_host_key_type(key_type, who, [](auto) {});
}

} // namespace detail
} // namespace clprim

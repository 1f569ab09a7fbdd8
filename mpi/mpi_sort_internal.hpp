#pragma once
// Private to mpi/: the pieces of clprim::mpi::sort (mpi_sort.cpp runs them in order).
//  - mpi_splitters.cpp: exact global split points by distributed selection over the key bits;
//  - mpi_exchange.cpp: the all-to-all of the pieces through host buffers, in rounds where a
//    piece is larger than one round's cap (MPI counts are int).
#include <clprim/mpi.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace clprim {
namespace detail {

// Host memory for a run of elements (not initialised: a multi-GiB run is written once anyway).
struct host_run {
    std::unique_ptr<unsigned char[]> bytes;
    std::size_t size = 0; // elements
    explicit host_run(std::size_t n = 0, std::size_t element_bytes = 1)
        : bytes(new unsigned char[n * element_bytes > 0 ? n * element_bytes : 1]), size(n) {}
    unsigned char* data() { return bytes.get(); }
    const unsigned char* data() const { return bytes.get(); }
};

// Throws (as an MPI failure of `who`) when an MPI call did not return MPI_SUCCESS (only seen
// with an error handler other than MPI's default, which aborts).
void mpi_check(int rc, const char* call, const char* who);

// The split points of this rank's sorted run (ascending in ordered_key(key, order)): splits[r] is
// the first local index that goes to rank r (splits[0] = 0, splits[p] = n), so that rank r gets
// global positions [targets[r-1], targets[r]), ties ordered by (rank, index). targets: the p - 1
// global boundaries floor(r*N/p), r = 1..p-1. Collective. rounds: MPI_Allreduce rounds taken.
std::vector<std::uint64_t> mpi_split_points(const host_run& run, element_type key_type, sort_order order,
                                            const std::vector<std::uint64_t>& targets, MPI_Comm comm,
                                            unsigned& rounds, const char* who);

// Throws unsupported_error for a key type without a host twin of the sort's order.
void mpi_require_host_key_order(element_type key_type, const char* who);

// Where the exchange reads and writes: keys (and values) of the sorted local run, cut by splits,
// into recv (runs in source-rank order, recv_counts[j] from rank j at recv_offsets[j]).
struct mpi_exchange_plan {
    const host_run* send_keys = nullptr;
    const host_run* send_values = nullptr; // null without values
    host_run* recv_keys = nullptr;
    host_run* recv_values = nullptr;
    std::size_t key_bytes = 4, value_bytes = 0;
    std::vector<std::uint64_t> send_counts, send_offsets, recv_counts, recv_offsets;
};

// Alltoall of the counts (fills recv_counts / recv_offsets from send_counts / send_offsets).
void mpi_exchange_counts(mpi_exchange_plan& plan, MPI_Comm comm, const char* who);

// The all-to-all of the pieces (MPI_Alltoallw, absolute addresses, a contiguous datatype of the
// element size), in as many rounds as the largest piece of any rank pair needs at
// CLPRIM_MPI_ROUND_BYTES per pair and round. Collective; returns the number of rounds.
unsigned mpi_exchange_pieces(const mpi_exchange_plan& plan, MPI_Comm comm, const char* who);

} // namespace detail
} // namespace clprim

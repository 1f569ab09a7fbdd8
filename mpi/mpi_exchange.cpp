// The exchange of clprim::mpi::sort (issue #32): every rank sends piece j of its sorted run to rank
// j and receives the p runs of its share, in source-rank order, through host buffers.
//
// MPI counts and displacements are int; a rank may hold more than 2^31 keys. So the pieces travel
// with MPI_Alltoallw over absolute addresses (MPI_BOTTOM): per peer one datatype that names the
// keys' block and the values' block of this round (MPI_Type_create_struct over a contiguous type
// of the element size, 64-bit MPI_Aint addresses), count 1. A round carries at most
// CLPRIM_MPI_ROUND_BYTES (default 1 GiB) per rank pair; larger pieces take more rounds, every
// rank the same number (the largest piece of any pair decides, one MPI_Allreduce).
#include "mpi_sort_internal.hpp"

#include <clprim/detail/knobs.hpp>

#include <algorithm>
#include <climits>

namespace clprim {
namespace detail {

namespace {

// A committed MPI datatype, freed when it goes.
struct owned_type {
    MPI_Datatype type = MPI_DATATYPE_NULL;
    owned_type() = default;
    owned_type(const owned_type&) = delete;
    owned_type& operator=(const owned_type&) = delete;
    ~owned_type()
    {
        if (type != MPI_DATATYPE_NULL) MPI_Type_free(&type);
    }
};

void make_contiguous(owned_type& t, std::size_t bytes, const char* who)
{
    mpi_check(MPI_Type_contiguous(int(bytes), MPI_BYTE, &t.type), "MPI_Type_contiguous", who);
    mpi_check(MPI_Type_commit(&t.type), "MPI_Type_commit", who);
}

// One peer's blocks of a round: `count` elements of keys at keys (and of values at values).
void make_piece(owned_type& t, std::size_t count, const void* keys, const void* values, MPI_Datatype key_type,
                MPI_Datatype value_type, const char* who)
{
    int lengths[2] = {int(count), int(count)};
    MPI_Aint where[2];
    MPI_Datatype types[2] = {key_type, value_type};
    mpi_check(MPI_Get_address(keys, &where[0]), "MPI_Get_address", who);
    if (values) mpi_check(MPI_Get_address(values, &where[1]), "MPI_Get_address", who);
    mpi_check(MPI_Type_create_struct(values ? 2 : 1, lengths, where, types, &t.type), "MPI_Type_create_struct", who);
    mpi_check(MPI_Type_commit(&t.type), "MPI_Type_commit", who);
}

} // namespace

void mpi_exchange_counts(mpi_exchange_plan& plan, MPI_Comm comm, const char* who)
{
    const std::size_t p = plan.send_counts.size();
    plan.recv_counts.assign(p, 0);
    mpi_check(MPI_Alltoall(plan.send_counts.data(), 1, MPI_UINT64_T, plan.recv_counts.data(), 1, MPI_UINT64_T, comm),
              "MPI_Alltoall", who);
    plan.recv_offsets.assign(p, 0);
    for (std::size_t j = 1; j < p; ++j) plan.recv_offsets[j] = plan.recv_offsets[j - 1] + plan.recv_counts[j - 1];
}

unsigned mpi_exchange_pieces(const mpi_exchange_plan& plan, MPI_Comm comm, const char* who)
{
    const std::size_t p = plan.send_counts.size();
    const bool values = plan.send_values != nullptr;
    const std::size_t element = plan.key_bytes + (values ? plan.value_bytes : 0);
    const std::size_t round_bytes = knob_number("CLPRIM_MPI_ROUND_BYTES", 1, std::size_t(1) << 30).value_or(std::size_t(1) << 30);
    const std::uint64_t cap = std::max<std::size_t>(1, std::min<std::size_t>(round_bytes / element, INT_MAX));

    std::uint64_t largest = 0, global_largest = 0;
    for (std::size_t j = 0; j < p; ++j) largest = std::max({largest, plan.send_counts[j], plan.recv_counts[j]});
    mpi_check(MPI_Allreduce(&largest, &global_largest, 1, MPI_UINT64_T, MPI_MAX, comm), "MPI_Allreduce", who);
    const std::uint64_t rounds = (global_largest + cap - 1) / cap;

    owned_type key_type, value_type;
    make_contiguous(key_type, plan.key_bytes, who);
    if (values) make_contiguous(value_type, plan.value_bytes, who);
    std::vector<int> send_n(p), recv_n(p), zero(p, 0);
    std::vector<MPI_Datatype> send_types(p), recv_types(p);
    for (std::uint64_t round = 0; round < rounds; ++round) {
        const std::uint64_t first = round * cap;
        std::vector<owned_type> pieces(2 * p);
        const auto piece = [&](std::size_t slot, std::uint64_t total, std::uint64_t offset, const host_run* k,
                               const host_run* v, int& n, MPI_Datatype& type) {
            const std::uint64_t count = total > first ? std::min(total - first, cap) : 0;
            n = count ? 1 : 0;
            type = MPI_BYTE;
            if (!count) return;
            const std::uint64_t at = offset + first;
            make_piece(pieces[slot], count, k->data() + at * plan.key_bytes,
                       v ? v->data() + at * plan.value_bytes : nullptr, key_type.type, value_type.type, who);
            type = pieces[slot].type;
        };
        for (std::size_t j = 0; j < p; ++j) {
            piece(j, plan.send_counts[j], plan.send_offsets[j], plan.send_keys, plan.send_values, send_n[j], send_types[j]);
            piece(p + j, plan.recv_counts[j], plan.recv_offsets[j], plan.recv_keys, values ? plan.recv_values : nullptr,
                  recv_n[j], recv_types[j]);
        }
        mpi_check(MPI_Alltoallw(MPI_BOTTOM, send_n.data(), zero.data(), send_types.data(), MPI_BOTTOM, recv_n.data(),
                                zero.data(), recv_types.data(), comm),
                  "MPI_Alltoallw", who);
    }
    return unsigned(rounds);
}

} // namespace detail
} // namespace clprim

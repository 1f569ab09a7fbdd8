// clprim::mpi::sort / sort_by_key (issue #32): sort locally on the device, read the sorted run to
// the host, choose exact global splitters (mpi_splitters.cpp), exchange the pieces once
// (mpi_exchange.cpp), upload the p received runs and merge them on the device, stable in
// source-rank order (pairwise rounds of clprim's merge, ping-ponging between the caller's vector
// and a scratch buffer so the last round lands in the caller's vector).
//
// No rank is ever left waiting in a collective for a rank that failed: the ranks agree (one
// MPI_Allreduce of the lowest failing rank) after the argument checks, after the local sort and
// its read-back, and after the receive buffers are allocated; then every rank throws.
#include "mpi_sort_internal.hpp"

#include <clprim/detail/queue_order.hpp>
#include <clprim/detail/scratch_pool.hpp>
#include <clprim/merge.hpp>
#include <clprim/sort.hpp>

#include <chrono>

namespace clprim {
namespace detail {

namespace {

double seconds_since(std::chrono::steady_clock::time_point& t)
{
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - t).count();
    t = now;
    return s;
}

// All ranks learn whether one failed (lowest failing rank); the failing ranks rethrow their own
// error, the others throw one naming it (invalid_argument_error where arguments were checked).
void agree(MPI_Comm comm, const std::exception_ptr& mine, bool arguments, const char* who)
{
    int rank = 0, p = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    const int flag = mine ? rank : p;
    int first = p;
    mpi_check(MPI_Allreduce(&flag, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce", who);
    if (mine) std::rethrow_exception(mine);
    if (first == p) return;
    const std::string text = std::string(who) + ": rank " + std::to_string(first);
    if (arguments) throw invalid_argument_error(text + " rejected its arguments; no rank sorted");
    throw error(text + " failed; the sort was abandoned on every rank");
}

// A run of the merge: count elements from `at` in the buffers of one side of the ping-pong.
struct merge_run {
    std::size_t at, count;
};

// Uploads the received runs and merges them pairwise (runs i and i+1, lower rank first) until
// one is left, in the caller's keys (and values).
void merge_received(const host_run& keys, const host_run* values, const std::vector<std::uint64_t>& counts,
                    const buffer_range& out_keys, const buffer_range& out_values, const mpi_sort_request& r,
                    bc::command_queue& queue, const char* who)
{
    const std::size_t n = keys.size;
    if (n == 0) return;
    const std::size_t kb = size_of(r.key_type), vb = r.has_values ? size_of(r.value_type) : 0;
    std::vector<merge_run> runs;
    std::size_t at = 0;
    for (std::uint64_t c : counts) {
        if (c) runs.push_back({at, std::size_t(c)});
        at += std::size_t(c);
    }
    unsigned rounds = 0;
    for (std::size_t m = runs.size(); m > 1; m = (m + 1) / 2) ++rounds;

    scratch_lease lease(queue);
    // side 0: the caller's vectors; side 1: scratch. The upload goes where `rounds` rounds end on side 0.
    buffer_range side_k[2] = {out_keys, {}}, side_v[2] = {out_values, {}};
    if (rounds) {
        side_k[1] = {lease.buffer(n * kb), 0, n};
        if (r.has_values) side_v[1] = {lease.buffer(n * vb), 0, n};
    }
    int src = rounds % 2;
    guarded(who, [&] {
        queue.enqueue_write_buffer(side_k[src].buffer, side_k[src].offset * kb, n * kb, keys.data());
        if (r.has_values) queue.enqueue_write_buffer(side_v[src].buffer, side_v[src].offset * vb, n * vb, values->data());
    });
    const auto part = [](const buffer_range& b, const merge_run& run) {
        return buffer_range{b.buffer, b.offset + run.at, run.count};
    };
    for (; runs.size() > 1; src ^= 1) {
        const int dst = src ^ 1;
        std::vector<merge_run> next;
        for (std::size_t i = 0; i < runs.size(); i += 2) {
            if (i + 1 == runs.size()) { // the odd run out moves over as it is
                const merge_run& run = runs[i];
                guarded(who, [&] {
                    queue.enqueue_copy_buffer(side_k[src].buffer, side_k[dst].buffer, (side_k[src].offset + run.at) * kb,
                                              (side_k[dst].offset + run.at) * kb, run.count * kb);
                    if (r.has_values)
                        queue.enqueue_copy_buffer(side_v[src].buffer, side_v[dst].buffer, (side_v[src].offset + run.at) * vb,
                                                  (side_v[dst].offset + run.at) * vb, run.count * vb);
                });
                next.push_back(run);
                continue;
            }
            const merge_run a = runs[i], b = runs[i + 1], both{a.at, a.count + b.count};
            merge_request m;
            m.keys1 = part(side_k[src], a);
            m.keys2 = part(side_k[src], b);
            m.keys_out = part(side_k[dst], both);
            if (r.has_values) {
                m.values1 = part(side_v[src], a);
                m.values2 = part(side_v[src], b);
                m.values_out = part(side_v[dst], both);
            }
            m.key_type = r.key_type;
            m.value_type = r.value_type;
            m.has_values = r.has_values;
            m.order = r.order;
            merge_impl(m, queue, who);
            next.push_back(both);
        }
        runs.swap(next);
    }
}

} // namespace

void mpi_sort_impl(mpi_sort_request& r, const mpi_resize_fn& resize, bc::command_queue& user_queue, MPI_Comm comm,
                   const char* who, mpi_sort_stats* stats)
{
    auto clock = std::chrono::steady_clock::now();
    const auto start = clock;
    mpi_sort_stats local_stats;
    mpi_sort_stats& st = stats ? *stats : local_stats;
    st = mpi_sort_stats{};
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) throw invalid_argument_error(std::string(who) + ": MPI is not initialised");
    int rank = 0, p = 1;
    mpi_check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank", who);
    mpi_check(MPI_Comm_size(comm, &p), "MPI_Comm_size", who);

    if (!r.error) try {
            require_type_support(r.key_type, user_queue.get_device(), who);
            if (r.has_values) require_type_support(r.value_type, user_queue.get_device(), who);
            mpi_require_host_key_order(r.key_type, who);
        } catch (const error&) {
            r.error = std::current_exception();
        }
    agree(comm, r.error, true, who);
    st.check = seconds_since(clock);

    in_order_scope scope(user_queue);
    bc::command_queue& queue = scope.queue();
    const std::size_t kb = size_of(r.key_type), vb = r.has_values ? size_of(r.value_type) : 0;
    const std::size_t n = r.keys.size;
    sort_request sr;
    sr.keys = r.keys;
    sr.key_type = r.key_type;
    sr.values = r.values;
    sr.value_type = r.value_type;
    sr.has_values = r.has_values;
    sr.order = r.order;

    // 1. the local sort, and its run read to the host (every rank, before the first agreement)
    host_run run_keys, run_values;
    std::exception_ptr failed;
    try {
        if (n) sort_impl(sr, sort_algorithm::radix, queue);
        if (stats) guarded(who, [&] { queue.finish(); });
        st.local_sort = seconds_since(clock);
        if (p > 1) {
            run_keys = host_run(n, kb);
            if (r.has_values) run_values = host_run(n, vb);
            guarded(who, [&] {
                if (n) queue.enqueue_read_buffer(r.keys.buffer, r.keys.offset * kb, n * kb, run_keys.data());
                if (n && r.has_values) queue.enqueue_read_buffer(r.values.buffer, r.values.offset * vb, n * vb, run_values.data());
            });
        }
    } catch (const std::exception&) {
        failed = std::current_exception();
    }
    st.to_host = seconds_since(clock);
    if (p == 1) { // nothing to exchange: the local sort is the global one
        if (failed) std::rethrow_exception(failed);
        st.global_n = n;
        st.total = seconds_since(clock = start);
        return;
    }
    agree(comm, failed, false, who);

    // 2. N and the split points
    std::uint64_t local_n = n, total_n = 0;
    mpi_check(MPI_Allreduce(&local_n, &total_n, 1, MPI_UINT64_T, MPI_SUM, comm), "MPI_Allreduce", who);
    st.global_n = total_n;
    if (total_n == 0) { // every rank's vector is empty already
        st.total = seconds_since(clock = start);
        return;
    }
    const auto boundary = [&](std::uint64_t q) { return mpi_share_boundary(q, total_n, std::uint64_t(p)); };
    std::vector<std::uint64_t> targets(std::size_t(p) - 1);
    for (int q = 1; q < p; ++q) targets[std::size_t(q) - 1] = boundary(std::uint64_t(q));
    const std::vector<std::uint64_t> splits =
        mpi_split_points(run_keys, r.key_type, r.order, targets, comm, st.selection_rounds, who);
    st.splitters = seconds_since(clock);

    // 3. the exchange
    const std::size_t share = std::size_t(boundary(std::uint64_t(rank) + 1) - boundary(std::uint64_t(rank)));
    mpi_exchange_plan plan;
    plan.send_keys = &run_keys;
    plan.send_values = r.has_values ? &run_values : nullptr;
    plan.key_bytes = kb;
    plan.value_bytes = vb;
    for (int q = 0; q < p; ++q) {
        plan.send_offsets.push_back(splits[std::size_t(q)]);
        plan.send_counts.push_back(splits[std::size_t(q) + 1] - splits[std::size_t(q)]);
    }
    mpi_exchange_counts(plan, comm, who);
    host_run recv_keys, recv_values;
    try {
        std::uint64_t received = 0;
        for (std::uint64_t c : plan.recv_counts) received += c;
        if (received != share)
            throw error(std::string(who) + ": internal error: " + std::to_string(received) + " keys arrive for a share of " +
                        std::to_string(share));
        recv_keys = host_run(share, kb);
        if (r.has_values) recv_values = host_run(share, vb);
    } catch (const std::exception&) {
        failed = std::current_exception();
    }
    agree(comm, failed, false, who);
    plan.recv_keys = &recv_keys;
    plan.recv_values = r.has_values ? &recv_values : nullptr;
    st.exchange_rounds = mpi_exchange_pieces(plan, comm, who);
    run_keys = host_run();
    run_values = host_run();
    st.exchange = seconds_since(clock);

    // 4. the received runs into the caller's vectors, merged on the device
    buffer_range out_keys, out_values;
    resize(share, out_keys, out_values);
    merge_received(recv_keys, r.has_values ? &recv_values : nullptr, plan.recv_counts, out_keys, out_values, r, queue, who);
    if (stats) guarded(who, [&] { queue.finish(); });
    st.merge = seconds_since(clock);
    st.total = seconds_since(clock = start);
}

} // namespace detail
} // namespace clprim

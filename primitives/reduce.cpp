// clprim::reduce: host side of the reduce0..reduce6 progression, the fast variant, reductions
// whose result stays on the device, and reductions with a user operator (any Boost.Compute
// binary function object, rendered into the kernels; commutative ones take the fast kernels,
// the others order-keeping ones). Kernels: reduce.cl over workgroup_reduce.cl, one program per
// (type, op) holding every variant.
#include "reduce_layout.cl"
#include "reduce_pinned.hpp"
#include "reduce_policy.hpp"
#include "stream_block.hpp"

#include <clprim/detail/device_limits.hpp>
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/kernel_launch.hpp>
#include <clprim/detail/knobs.hpp>
#include <clprim/detail/scratch_pool.hpp>
#include <clprim/detail/primitives_kernels.hpp>
#include <clprim/reduce.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

namespace clprim {
namespace detail {

namespace {

const char* const who = "clprim::reduce";

const char* kernel_name(reduce_variant v)
{
    switch (v) {
    case reduce_variant::reduce0: return "reduce0";
    case reduce_variant::reduce1: return "reduce1";
    case reduce_variant::reduce2: return "reduce2";
    case reduce_variant::reduce3: return "reduce3";
    case reduce_variant::reduce4: return "reduce4";
    case reduce_variant::reduce5: return "reduce5";
    case reduce_variant::reduce6: return "reduce6";
    case reduce_variant::fast: return "reduce_fast";
    }
    return nullptr;
}

// CLPRIM_REDUCE_OP of reduce.cl: 0 sum, 1 min, 2 max (op_code), or a generated operator.
constexpr int generated_op_code = 3;

int op_code(reduce_op op)
{
    switch (op) {
    case reduce_op::sum: return 0;
    case reduce_op::min: return 1;
    case reduce_op::max: return 2;
    }
    return -1;
}

template <class T>
void write_identity(reduce_op op, void* result)
{
    T v{};
    if (op == reduce_op::min) v = std::numeric_limits<T>::max();
    else if (op == reduce_op::max) v = std::numeric_limits<T>::lowest();
    std::memcpy(result, &v, sizeof v);
}

void identity(element_type type, reduce_op op, void* result)
{
    visit_element_type(type, [&](auto tag) { write_identity<typename decltype(tag)::type>(op, result); });
}

// The fast variant's tuning (reduce_policy.hpp), read once.
const reduce_policy& tuning()
{
    static const reduce_policy t = select_reduce_policy();
    return t;
}

// Sub-group support the kernels can use: 1 cl_khr_subgroups, 2 cl_intel_subgroups, 0 none.
int subgroup_kind(const bc::device& device)
{
    if (device.supports_extension("cl_khr_subgroups")) return 1;
    if (device.supports_extension("cl_intel_subgroups")) return 2;
    return 0;
}

// The operator a call reduces with: one of the builtins (code 0 sum, 1 min, 2 max), or a
// generated source (generated_op_code, clprim/detail/operator_source.hpp) defining CLPRIM_OP and
// CLPRIM_IDENTITY; ordered: the operator may not be commutative, so only the order-keeping
// kernels (reduce_ordered*) may run it.
struct op_desc {
    int code = 0;
    std::string file;
    bool ordered = false;
    const void* identity = nullptr; // generated_op_code: size_of(type) bytes
    bool generated() const { return code == generated_op_code; }
};

// Elements per work-item and tile in the order-keeping kernels (RED_ITEMS): 64 bytes each.
std::size_t ordered_items(std::size_t elem) { return elem == 4 ? 16 : 8; }
std::size_t ordered_tile_slots(std::size_t tile) { return RED_TILE_SLOTS(tile); }

// The program for (type, op) with work-group size wg compiled in (reduce5/reduce6 unroll for it).
// Sub-group code is tried first where the device reports it; a driver that then fails to build
// it gets the barrier-only program. A generated operator is joined in front of the kernels.
bc::program reduce_program(const bc::context& context, const bc::device& device, element_type type,
                           const op_desc& op, std::size_t wg)
{
    std::string base = type_options(type, "T") + " -DCLPRIM_REDUCE_OP=" + std::to_string(op.code) +
                       " -DRED_WG=" + std::to_string(wg) + " -DRED_LOADS=" + std::to_string(tuning().loads) +
                       " -DRED_ITEMS=" + std::to_string(ordered_items(size_of(type))) +
                       " -DRED_KERNELS=" + (!op.generated() ? "0" : op.ordered ? "2" : "1");
    if (device.supports_extension("cl_khr_int64_base_atomics")) base += " -DRED_ATOM64=1";
    std::vector<std::string> files{"workgroup_reduce.cl", "reduce_layout.cl", "stream_block.cl", "reduce.cl"};
    if (op.generated()) files.insert(files.begin(), op.file);
    if (const int sg = op.generated() ? 0 : subgroup_kind(device)) {
        try {
            return stream_program(context, device, files, base + " -DCLPRIM_SUBGROUPS=" + std::to_string(sg));
        } catch (const build_error&) {
        }
    }
    return stream_program(context, device, files, base);
}

// Prepared kernels and the one-launch kernels' counter, kept per context (the pinned result word
// per host thread: reduce_pinned.cpp) so a call pays for neither a kernel creation nor an
// allocation; the lock is held for the
// whole call (which waits for its result), so concurrent calls never share them. The partial
// results come from the scratch pool of the call's queue.
// The arguments last set on a prepared kernel's `single` (the small path's kernel): the scalars and
// the per-queue result word are set again only when they change, since each clSetKernelArg is a
// driver call (H100: setting the 7 arguments cost 0.6-2.2 us a launch beside a launch of 4-8 us:
// docs/RESULTS.md, "#27 (s5-small)"). The caller's buffers are set at every call (a released
// buffer's handle may come back naming a new one); the result word is clprim's, kept alive by the
// queue's entry, so its handle names nothing else. Guarded by the pool's lock, like the kernel.
struct single_args {
    bool valid = false;
    cl_ulong in_offset = 0, n = 0, head = 0, out_offset = 0;
    cl_mem word = nullptr; // arg 4 when it is a result word; nullptr after a caller's buffer
    std::size_t local = 0;
};

struct prepared_kernel {
    bc::kernel kernel;
    bc::kernel single;    // once: the plain kernel of the same program, for a range one work-group takes
    single_args single_set;
    std::size_t wg = 0;
    device_limits lim{};
    bool gpu = false;     // profile_of(device).is_gpu()
    bool once = false;    // reduce_fast_once / reduce_fast_chunked_once: one launch, a counter argument
    bool ordered = false; // reduce_ordered (GPU) / reduce_ordered_chunks (CPU, work-groups of one)
};

// What a queue's calls keep, one entry per queue: the one-launch kernels' counter (one uint, 0
// between launches: a reduction whose result stays on the device does not wait, so reductions on
// two queues of one context may run at the same time), the value-returning small path's word, and
// the queue's context and device (asked of the driver once: each query, and each copy of a
// Boost.Compute device, is a driver call, and a small call's whole cost is a few microseconds).
// The queue is kept (retained) so that its handle is not reused.
struct per_queue {
    bc::command_queue queue;
    bc::context context;
    bc::device device;
    bc::buffer counter;
    bc::buffer result; // a value-returning call's one value (the call holds the lock until it is read)
};

struct reduce_state {
    std::mutex mutex;
    std::map<cl_command_queue, per_queue> queues;
    // Kernels ready to launch, by (context, device, type, op, variant, generated source): creating
    // a kernel and querying its limits costs more than a small reduction itself on some drivers.
    std::map<std::tuple<cl_context, cl_device_id, int, int, int, std::string>, prepared_kernel> kernels;
};

reduce_state& pool()
{
    static reduce_state* p = new reduce_state; // never destroyed: no ordering issues at exit
    return *p;
}

// The queue's entry (under the pool's lock).
per_queue& queue_entry(const bc::command_queue& queue)
{
    per_queue& q = pool().queues[queue.get()];
    if (q.queue.get() == nullptr) {
        q.queue = queue;
        q.context = queue.get_context();
        q.device = queue.get_device();
    }
    return q;
}

bc::buffer& counter_for(per_queue& q)
{
    if (q.counter.get() == nullptr) {
        cl_uint zero[4] = {0, 0, 0, 0};
        q.counter = bc::buffer(q.context, sizeof zero, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, zero);
    }
    return q.counter;
}

// The one-value buffer of value-returning calls on this queue (16 bytes): no scratch lease on the
// small inputs' path, whose whole cost is one launch and one read.
bc::buffer& result_word_for(per_queue& q)
{
    if (q.result.get() == nullptr) q.result = bc::buffer(q.context, 16, CL_MEM_READ_WRITE);
    return q.result;
}


struct plan {
    std::size_t wg = 0;        // work-group size of every pass
    std::size_t per_group = 0; // elements one work-group covers in a one-shot pass (0: grid-stride)
    std::size_t max_groups = 0;
    std::size_t vec = 1;       // elements per vector load (fast)
};

// Work-groups for one pass over m elements (pass 0 reads the caller's data).
std::size_t groups_for(const plan& p, reduce_variant v, std::size_t m, std::size_t pass)
{
    if (p.per_group) return ceil_div(m, p.per_group);
    // Grid-stride variants: the partials of the first pass take one more work-group.
    if (pass > 0) return 1;
    // Enough work per work-item to amortise the tree (>= 4 loads), at most a few groups per CU.
    const std::size_t per_item = (v == reduce_variant::fast ? p.vec * tuning().loads : 2) * 4;
    return std::max<std::size_t>(1, std::min(p.max_groups, ceil_div(m, p.wg * per_item)));
}

// The one value that comes to the host (reduce_pinned.hpp's forms; select_reduce_read).
void read_result(const bc::context& context, bc::command_queue& queue, const bc::buffer& from, std::size_t offset,
                 std::size_t bytes, void* result, bool small, bool gpu)
{
    read_value(context, queue, from, offset, bytes, result, select_reduce_read(small, gpu));
}

} // namespace

namespace {

// Where the result goes: the host (*host, the call waits) or a one-element device range (the
// call only enqueues).
struct destination {
    void* host = nullptr;
    const buffer_range* device = nullptr;
};

// The identity of op, for an empty range.
void op_identity(element_type type, const op_desc& op, void* out)
{
    if (op.generated()) std::memcpy(out, op.identity, size_of(type));
    else identity(type, op.code == 0 ? reduce_op::sum : op.code == 1 ? reduce_op::min : reduce_op::max, out);
}

prepared_kernel& prepare(const bc::context& context, const bc::device& device, element_type type, const op_desc& op,
                         reduce_variant variant)
{
    const char* kname = kernel_name(variant);
    const std::size_t elem = size_of(type);
    const int layout = forced_reduce_layout();
    auto& prepared = pool().kernels[std::make_tuple(context.get(), device.id(), int(type), 2 * op.code + int(op.ordered),
                                                     4 * int(variant) + layout + 1, op.file)];
    if (prepared.wg != 0) return prepared;
    const bool gpu = profile_of(device).is_gpu();
    // Work-group size: a power of two the device allows, whose scratch fits in local memory, at
    // most 256 (enough to hide latency; larger only lengthens the tree). The order-keeping tile
    // kernel also holds a tile of 64 bytes per work-item.
    const std::size_t per_item = op.ordered && gpu ? 2 * elem + 64 + 4 : 2 * elem;
    std::size_t wg0 = floor_pow2(std::min<std::size_t>(
        {device.max_work_group_size(), tuning().wg, std::max<std::size_t>(1, device.local_memory_size() / per_item)}));
    bc::program program = reduce_program(context, device, type, op, wg0);
    // fast on a CPU: one contiguous chunk per work-item, work-groups of one (see reduce.cl).
    const bool chunked = op.ordered ? !gpu
                                    : variant == reduce_variant::fast &&
                                          (layout < 0 ? !gpu : layout == 1);
    bool once = false;
    if (op.ordered) {
        kname = chunked ? "reduce_ordered_chunks" : "reduce_ordered";
    } else {
        if (chunked) kname = "reduce_fast_chunked";
        // One launch where the partials can be published with atomics (reduce.cl, RED_ONCE).
        once = variant == reduce_variant::fast && tuning().once &&
               (elem == 4 || (elem == 8 && device.supports_extension("cl_khr_int64_base_atomics")));
        if (once) kname = chunked ? "reduce_fast_chunked_once" : "reduce_fast_once";
    }
    bc::kernel k = program.create_kernel(kname);
    device_limits l = limits_for(k, device);
    if (l.max_work_group_size < wg0) {
        // This kernel allows less than the device maximum (registers, say): rebuild for it.
        wg0 = floor_pow2(l.max_work_group_size);
        program = reduce_program(context, device, type, op, wg0);
        k = program.create_kernel(kname);
        l = limits_for(k, device);
    }
    prepared.kernel = k;
    if (once) prepared.single = program.create_kernel(chunked ? "reduce_fast_chunked" : "reduce_fast");
    prepared.lim = l;
    prepared.gpu = gpu;
    prepared.wg = chunked ? 1 : wg0;
    prepared.once = once;
    prepared.ordered = op.ordered;
    return prepared;
}

// The last value of a reduction, at (from, offset), goes to the destination.
void deliver(const bc::context& context, bc::command_queue& queue, const bc::buffer& from, std::size_t offset,
             std::size_t elem, const destination& dest, bool gpu)
{
    if (dest.device) {
        queue.enqueue_copy_buffer(from, dest.device->buffer, offset * elem, dest.device->offset * elem, elem);
        return;
    }
    read_result(context, queue, from, offset * elem, elem, dest.host, false, gpu);
}

// The small path's one launch of `single` (reduce_fast over one work-group): arguments that are
// unchanged since the last launch are not set again (single_args). ours: out is a result word.
void launch_single(bc::command_queue& queue, prepared_kernel& p, const buffer_range& in, cl_ulong head,
                   const bc::buffer& out, std::size_t out_offset, bool ours, std::size_t local)
{
    bc::kernel& k = p.single;
    single_args& last = p.single_set;
    const bool all = !last.valid;
    last.valid = false; // until every argument below is set (a throw leaves them unknown)
    set_kernel_args_from(k, 0, in.buffer);
    if (all || last.in_offset != in.offset) set_kernel_args_from(k, 1, cl_ulong(in.offset));
    if (all || last.n != in.size) set_kernel_args_from(k, 2, cl_ulong(in.size));
    if (all || last.head != head) set_kernel_args_from(k, 3, head);
    if (all || !ours || last.word != out.get()) set_kernel_args_from(k, 4, out);
    if (all || last.out_offset != out_offset) set_kernel_args_from(k, 5, cl_ulong(out_offset));
    if (all || last.local != local) set_kernel_args_from(k, 6, local_bytes{local});
    last.in_offset = in.offset;
    last.n = in.size;
    last.head = head;
    last.word = ours ? out.get() : nullptr;
    last.out_offset = out_offset;
    last.local = local;
    last.valid = true;
    launch_1d(queue, k, p.wg, p.wg);
}

// Order-keeping reduction (any associative operator): per-segment results in group order, then
// one more launch of a single work-group (or work-item, on CPUs) over them.
void run_ordered(prepared_kernel& prepared, const bc::context& context, bc::command_queue& queue,
                 const buffer_range& in, std::size_t elem, const destination& dest)
{
    bc::kernel& kernel = prepared.kernel;
    const std::size_t wg = prepared.wg;
    const bool chunked = !prepared.gpu;
    const std::size_t items = ordered_items(elem);
    const std::size_t unit = chunked ? 4096 : wg * items; // elements per chunk at least / per tile
    const std::size_t max_parts = std::max<std::size_t>(1, prepared.lim.compute_units) * (chunked ? 4 : tuning().gpc);
    std::size_t parts = std::min(max_parts, ceil_div(in.size, unit));
    const std::size_t seg = chunked ? ceil_div(in.size, parts) : round_up(ceil_div(in.size, parts), unit);
    parts = ceil_div(in.size, seg);

    scratch_lease lease(queue);
    const bc::buffer scratch = lease.buffer((parts + 1) * elem);
    auto launch = [&](const bc::buffer& src, std::size_t src_off, std::size_t n, std::size_t segment,
                      const bc::buffer& dst, std::size_t dst_off, std::size_t groups) {
        set_kernel_args(kernel, src, cl_ulong(src_off), cl_ulong(n), cl_ulong(segment), dst, cl_ulong(dst_off));
        if (!chunked) {
            set_kernel_args_from(kernel, 6, local_bytes{ordered_tile_slots(wg * items) * elem}, local_bytes{wg * elem});
        }
        launch_1d(queue, kernel, groups * wg, wg);
    };
    // One part only: straight into the device destination, or into scratch for the host.
    if (parts == 1 && dest.device) {
        launch(in.buffer, in.offset, in.size, seg, dest.device->buffer, dest.device->offset, 1);
        return;
    }
    launch(in.buffer, in.offset, in.size, seg, scratch, 0, parts);
    if (parts == 1) {
        deliver(context, queue, scratch, 0, elem, dest, prepared.gpu);
        return;
    }
    if (dest.device) {
        launch(scratch, 0, parts, parts, dest.device->buffer, dest.device->offset, 1);
    } else {
        launch(scratch, 0, parts, parts, scratch, parts, 1);
        deliver(context, queue, scratch, parts, elem, dest, prepared.gpu);
    }
}

void run_reduce(const buffer_range& in, element_type type, const op_desc& op, reduce_variant variant,
                bc::command_queue& queue, const destination& dest)
{
    if (kernel_name(variant) == nullptr) throw invalid_argument_error("clprim::reduce: unknown reduce_variant");
    if (op.code < 0) throw invalid_argument_error("clprim::reduce: unknown reduce_op");
    if (dest.device && dest.device->buffer.get() == in.buffer.get() && dest.device->offset >= in.offset &&
        dest.device->offset < in.offset + in.size)
        throw invalid_argument_error("clprim::reduce: the result lies inside the input range");
    require_type_support(type, queue, who);

    guarded(who, [&] {
        const std::size_t elem = size_of(type);
        if (in.size == 0) {
            unsigned char id[8];
            op_identity(type, op, id);
            if (dest.host) std::memcpy(dest.host, id, elem);
            else queue.enqueue_fill_buffer(dest.device->buffer, id, elem, dest.device->offset * elem, elem);
            return;
        }
        std::lock_guard<std::mutex> lock(pool().mutex);
        per_queue& entry = queue_entry(queue);
        const bc::context& context = entry.context;
        prepared_kernel& prepared = prepare(context, entry.device, type, op, variant);
        if (prepared.ordered) {
            run_ordered(prepared, context, queue, in, elem, dest);
            return;
        }
        bc::kernel& kernel = prepared.kernel;
        const std::size_t wg = prepared.wg;
        const device_limits& lim = prepared.lim;

        plan p;
        p.wg = wg;
        p.vec = elem >= 4 ? 16 / elem : 4; // 8/16-bit types: 4-element vectors (reduce.cl's R_VEC)
        p.max_groups = lim.compute_units * (prepared.gpu ? tuning().gpc : 4);
        switch (variant) {
        case reduce_variant::reduce0: case reduce_variant::reduce1: case reduce_variant::reduce2:
            p.per_group = wg;
            break;
        case reduce_variant::reduce3: case reduce_variant::reduce4: case reduce_variant::reduce5:
            p.per_group = 2 * wg;
            break;
        default:
            p.per_group = 0;
            break;
        }

        if (prepared.once) {
            // One launch: partials in scratch[0, groups), the result in scratch[groups] or
            // straight in the caller's result range.
            const std::size_t groups = groups_for(p, variant, in.size, 0);
            const cl_ulong head = std::min(in.size, (p.vec - in.offset % p.vec) % p.vec);
            if (groups == 1 && prepared.single.get() != nullptr) {
                // A range one work-group takes (small inputs): the plain kernel writes the result
                // itself, without the counter's atomics and the last group's second reduction.
                if (dest.device) {
                    launch_single(queue, prepared, in, head, dest.device->buffer, dest.device->offset, false,
                                  wg * elem);
                    return;
                }
                const bc::buffer& word = result_word_for(entry);
                launch_single(queue, prepared, in, head, word, 0, true, wg * elem);
                read_result(context, queue, word, 0, elem, dest.host, true, prepared.gpu);
                return;
            }
            scratch_lease lease(queue);
            const bc::buffer scratch = lease.buffer((groups + 1) * elem);
            launch(queue, kernel, groups * wg, wg, in.buffer, cl_ulong(in.offset), cl_ulong(in.size), head, scratch,
                cl_ulong(0),
                dest.device ? dest.device->buffer : scratch, cl_ulong(dest.device ? dest.device->offset : groups),
                counter_for(entry), local_bytes{wg * elem});
            if (dest.host) read_result(context, queue, scratch, groups * elem, elem, dest.host, false, prepared.gpu);
            return;
        }

        // Partials ping-pong between two regions of one scratch buffer: region A holds the
        // output of passes 0, 2, ..., region B (16-byte aligned) that of passes 1, 3, ...
        const std::size_t n1 = groups_for(p, variant, in.size, 0);
        const std::size_t n2 = n1 > 1 ? groups_for(p, variant, n1, 1) : 0;
        const std::size_t b_off = round_up(n1, 16);
        scratch_lease lease(queue);
        const bc::buffer scratch = lease.buffer((b_off + std::max<std::size_t>(n2, 1)) * elem);

        bc::buffer src = in.buffer;
        std::size_t src_off = in.offset, m = in.size;
        for (std::size_t pass = 0;; ++pass) {
            const std::size_t groups = groups_for(p, variant, m, pass);
            const std::size_t dst_off = (pass % 2 == 0) ? 0 : b_off;
            if (variant == reduce_variant::fast) {
                // Scalars before the first 16-byte aligned element (buffers start aligned).
                const std::size_t head = std::min(m, (p.vec - src_off % p.vec) % p.vec);
                launch(queue, kernel, groups * wg, wg, src, cl_ulong(src_off), cl_ulong(m), cl_ulong(head), scratch,
                    cl_ulong(dst_off), local_bytes{wg * elem});
            } else {
                launch(queue, kernel, groups * wg, wg, src, cl_ulong(src_off), cl_ulong(m), scratch, cl_ulong(dst_off),
                    local_bytes{wg * elem});
            }
            src = scratch;
            src_off = dst_off;
            m = groups;
            if (groups == 1) break;
        }
        deliver(context, queue, scratch, src_off, elem, dest, prepared.gpu);
    });
}

op_desc builtin(reduce_op op)
{
    op_desc d;
    d.code = op_code(op);
    return d;
}

} // namespace

void reduce_impl(const buffer_range& in, element_type type, reduce_op op, reduce_variant variant,
                 bc::command_queue& user_queue, void* result)
{
    in_order_scope scope(user_queue); // in order on out-of-order queues too (queue_order.hpp)
    bc::command_queue& queue = scope.queue();
    destination dest;
    dest.host = result;
    run_reduce(in, type, builtin(op), variant, queue, dest);
}

void reduce_to_device_impl(const buffer_range& in, const buffer_range& result, element_type type, reduce_op op,
                           bc::command_queue& user_queue)
{
    in_order_scope scope(user_queue); // in order on out-of-order queues too (queue_order.hpp)
    bc::command_queue& queue = scope.queue();
    destination dest;
    dest.device = &result;
    run_reduce(in, type, builtin(op), reduce_variant::fast, queue, dest);
}

void reduce_generated_impl(const buffer_range& in, element_type type, const std::string& op_file, bool commutative,
                           const void* identity, bc::command_queue& user_queue, void* host_result,
                           const buffer_range* device_result)
{
    in_order_scope scope(user_queue); // in order on out-of-order queues too (queue_order.hpp)
    bc::command_queue& queue = scope.queue();
    op_desc op;
    op.code = generated_op_code;
    op.file = op_file;
    op.ordered = !commutative;
    op.identity = identity;
    destination dest;
    dest.host = host_result;
    dest.device = device_result;
    run_reduce(in, type, op, reduce_variant::fast, queue, dest);
}

} // namespace detail
} // namespace clprim

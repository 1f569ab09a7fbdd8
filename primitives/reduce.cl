// clprim::reduce: the reduce0..reduce6 progression and the fast variant, for one (type, op).
//
// The host builds one program per (element type, operator) holding every variant, with
//   T, T_IS_FLOAT, ... (type_options), CLPRIM_REDUCE_OP (0 sum, 1 min, 2 max),
//   RED_WG (the work-group size every kernel here is launched with: a power of two chosen from
//   the device) and CLPRIM_SUBGROUPS (1 cl_khr_subgroups, 2 cl_intel_subgroups) where available.
// Every kernel reduces in[in_off, in_off + n) into one value per work-group, written to
// out[out_off + group]; the host repeats passes over the partials until one value remains,
// except reduce_fast_once / reduce_fast_chunked_once, whose last work-group finishes the job.
// Elements past n are never read: loads outside the range become the operator's identity.
//
// Integer sums are done in the unsigned type of the same width: two's-complement wrap-around is
// then defined behaviour and gives the same bits OpenCL's signed arithmetic would.
//
// Required: T, CLPRIM_REDUCE_OP, RED_WG, workgroup_reduce.cl, reduce_layout.cl and stream_block.cl
// joined before this file; optional: RED_KERNELS, RED_ITEMS, RED_LOADS, CLPRIM_SUBGROUPS.
#ifndef T
#error "reduce.cl needs T"
#endif
#ifndef CLPRIM_REDUCE_OP
#error "reduce.cl needs CLPRIM_REDUCE_OP"
#endif
#ifndef RED_WG
#error "reduce.cl needs RED_WG"
#endif
#ifndef RED_TILE_PAD
#error "reduce.cl needs reduce_layout.cl joined before it"
#endif
#ifndef CLPRIM_STREAM_BLOCK_CL
#error "reduce.cl needs stream_block.cl joined before it"
#endif

// A user operator (CLPRIM_REDUCE_OP 3) comes from a generated source joined in front: it defines
// CLPRIM_OP(a, b) and CLPRIM_IDENTITY (clprim/detail/operator_source.hpp). Sub-group builtins
// know only add/min/max, so such programs use the barrier tree.
#if CLPRIM_REDUCE_OP == 3
#undef CLPRIM_SUBGROUPS
#endif
// Which kernels the program holds (fewer kernels compile faster, and a program per user operator
// needs only the ones it runs): 0 all but the order-keeping ones, 1 the fast ones, 2 the
// order-keeping ones.
#ifndef RED_KERNELS
#define RED_KERNELS 0
#endif

#if defined(CLPRIM_SUBGROUPS) && CLPRIM_SUBGROUPS == 2
#pragma OPENCL EXTENSION cl_intel_subgroups : enable
#elif defined(CLPRIM_SUBGROUPS)
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif

#if CLPRIM_REDUCE_OP == 0
#if T_IS_FLOAT
#define R T
#else
#define R T_UNSIGNED
#endif
#define R_OP(a, b) ((a) + (b))
#define R_ID ((R)0)
#define R_SG_REDUCE sub_group_reduce_add
#elif CLPRIM_REDUCE_OP == 1
#define R T
#if T_IS_FLOAT
#define R_OP(a, b) fmin(a, b)
#else
#define R_OP(a, b) min(a, b)
#endif
#define R_ID ((R)T_MAXVAL)
#define R_SG_REDUCE sub_group_reduce_min
#elif CLPRIM_REDUCE_OP == 3
#define R T
#define R_OP(a, b) CLPRIM_OP(a, b)
#define R_ID ((R)CLPRIM_IDENTITY)
#else
#define R T
#if T_IS_FLOAT
#define R_OP(a, b) fmax(a, b)
#else
#define R_OP(a, b) max(a, b)
#endif
#define R_ID ((R)T_MINVAL)
#define R_SG_REDUCE sub_group_reduce_max
#endif

// 16-byte vectors for the fast variant: uint4/int4/float4 or ulong2/long2/double2 (8/16-bit
// types: 4-element vectors too, uchar4 / short4, the host's vec).
#if T_BITS <= 32
#define R_VEC 4
#define R_HREDUCE(v) R_OP(R_OP((v).s0, (v).s1), R_OP((v).s2, (v).s3))
#else
#define R_VEC 2
#define R_HREDUCE(v) R_OP((v).s0, (v).s1)
#endif
#define RV CLPRIM_CAT(R, R_VEC)

// The operator on whole vectors (component by component): the builtins take vectors as they
// are; a user operator, written for scalars, is applied to each component.
#if CLPRIM_REDUCE_OP == 3
inline RV reduce_op_vec(const RV a, const RV b)
{
#if R_VEC == 4
    return (RV)(R_OP(a.s0, b.s0), R_OP(a.s1, b.s1), R_OP(a.s2, b.s2), R_OP(a.s3, b.s3));
#else
    return (RV)(R_OP(a.s0, b.s0), R_OP(a.s1, b.s1));
#endif
}
#define R_OPV(a, b) reduce_op_vec(a, b)
#else
#define R_OPV(a, b) R_OP(a, b)
#endif

#ifdef CLPRIM_SUBGROUPS
CLPRIM_DEFINE_WORKGROUP_REDUCE_SG(reduce_workgroup, R, R_OP, R_SG_REDUCE)
#else
CLPRIM_DEFINE_WORKGROUP_REDUCE(reduce_workgroup, R, R_OP)
#endif

#define REDUCE_ARGS                                                                          \
    __global const R *in, const ulong in_off, const ulong n, __global R *out,               \
        const ulong out_off, __local R *s

// One step of a sequential-addressing tree, followed by the barrier that makes its writes
// visible to the next step (no lockstep: this barrier is what the textbook unrolled tail omits).
#define REDUCE_STEP(S)                                                                       \
    if (lid < (S)) s[lid] = R_OP(s[lid], s[lid + (S)]);                                      \
    barrier(CLK_LOCAL_MEM_FENCE)

// The last wavefront's steps (s[0, min(L, 64)) hold the values left): with sub-groups, one
// sub-group reduction per sub-group plus a tiny tree over their results; otherwise the six steps
// written out, each with its barrier. `L` is uniform, so every work-item takes the same branches
// and reaches the same barriers.
inline R reduce_last_wavefront(__local R *s, const uint lid, const uint L)
{
#ifdef CLPRIM_SUBGROUPS
    const R v = lid < min(L, 64u) ? s[lid] : R_ID;
    barrier(CLK_LOCAL_MEM_FENCE); // everyone read s before reduce_workgroup reuses it
    return reduce_workgroup(v, s);
#else
    if (L > 32) { REDUCE_STEP(32); }
    if (L > 16) { REDUCE_STEP(16); }
    if (L > 8) { REDUCE_STEP(8); }
    if (L > 4) { REDUCE_STEP(4); }
    if (L > 2) { REDUCE_STEP(2); }
    if (L > 1) { REDUCE_STEP(1); }
    return s[0];
#endif
}

#if RED_KERNELS == 0
// reduce0: interleaved addressing; the active work-items are those with lid % (2*st) == 0, so
// neighbours in a wavefront take different branches (divergence) and the modulo is slow.
__kernel void reduce0(REDUCE_ARGS)
{
    in += in_off;
    const uint lid = get_local_id(0), L = get_local_size(0);
    const ulong i = (ulong)get_group_id(0) * L + lid;
    s[lid] = i < n ? in[i] : R_ID;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint st = 1; st < L; st <<= 1) {
        if (lid % (2 * st) == 0) s[lid] = R_OP(s[lid], s[lid + st]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) out[out_off + get_group_id(0)] = s[0];
}

// reduce1: interleaved addressing with a strided index: the first L/(2*st) work-items are the
// active ones (no divergence inside a wavefront), at the price of local-memory bank conflicts.
__kernel void reduce1(REDUCE_ARGS)
{
    in += in_off;
    const uint lid = get_local_id(0), L = get_local_size(0);
    const ulong i = (ulong)get_group_id(0) * L + lid;
    s[lid] = i < n ? in[i] : R_ID;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint st = 1; st < L; st <<= 1) {
        const uint index = 2 * st * lid;
        if (index < L) s[index] = R_OP(s[index], s[index + st]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) out[out_off + get_group_id(0)] = s[0];
}

// reduce2: sequential addressing: work-item lid combines s[lid] and s[lid + st], contiguous and
// conflict-free; but half the work-items are idle from the first step.
__kernel void reduce2(REDUCE_ARGS)
{
    in += in_off;
    const uint lid = get_local_id(0), L = get_local_size(0);
    const ulong i = (ulong)get_group_id(0) * L + lid;
    s[lid] = i < n ? in[i] : R_ID;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint st = L >> 1; st > 0; st >>= 1) {
        REDUCE_STEP(st);
    }
    if (lid == 0) out[out_off + get_group_id(0)] = s[0];
}

// Loads the two elements of work-item lid in a group covering 2*L elements, combined.
#define REDUCE_LOAD_PAIR(i, L)                                                               \
    R_OP((i) < n ? in[i] : R_ID, (i) + (L) < n ? in[(i) + (L)] : R_ID)

// reduce3: the first step happens during the global load (each work-item loads two elements),
// so half as many work-groups do the same work with no idle work-items at the start.
__kernel void reduce3(REDUCE_ARGS)
{
    in += in_off;
    const uint lid = get_local_id(0), L = get_local_size(0);
    const ulong i = (ulong)get_group_id(0) * (2 * L) + lid;
    s[lid] = REDUCE_LOAD_PAIR(i, L);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint st = L >> 1; st > 0; st >>= 1) {
        REDUCE_STEP(st);
    }
    if (lid == 0) out[out_off + get_group_id(0)] = s[0];
}

// reduce4: reduce3 with the last wavefront's steps taken out of the loop. The original drops the
// barriers there and relies on warp lockstep (a data race in OpenCL); what is kept is the
// unrolled straight-line tail, done with sub-group reductions where the device has them and with
// one barrier per step otherwise.
__kernel void reduce4(REDUCE_ARGS)
{
    in += in_off;
    const uint lid = get_local_id(0), L = get_local_size(0);
    const ulong i = (ulong)get_group_id(0) * (2 * L) + lid;
    s[lid] = REDUCE_LOAD_PAIR(i, L);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint st = L >> 1; st > 32; st >>= 1) {
        REDUCE_STEP(st);
    }
    const R r = reduce_last_wavefront(s, lid, L);
    if (lid == 0) out[out_off + get_group_id(0)] = r;
}

// The whole tree for the compile-time work-group size RED_WG, written out: the conditions on
// RED_WG are constants, so the compiler drops the steps that do not apply and no loop remains.
inline R reduce_unrolled(__local R *s, const uint lid)
{
    if (RED_WG > 2048) {
        for (uint st = RED_WG >> 1; st > 2048; st >>= 1) {
            REDUCE_STEP(st);
        }
    }
    if (RED_WG > 2048) { REDUCE_STEP(2048); }
    if (RED_WG > 1024) { REDUCE_STEP(1024); }
    if (RED_WG > 512) { REDUCE_STEP(512); }
    if (RED_WG > 256) { REDUCE_STEP(256); }
    if (RED_WG > 128) { REDUCE_STEP(128); }
    if (RED_WG > 64) { REDUCE_STEP(64); }
    return reduce_last_wavefront(s, lid, RED_WG);
}

// reduce5: reduce4 completely unrolled for the work-group size, which the host chose from the
// device and compiled in (RED_WG); reqd_work_group_size lets the compiler rely on it.
__kernel __attribute__((reqd_work_group_size(RED_WG, 1, 1))) void reduce5(REDUCE_ARGS)
{
    in += in_off;
    const uint lid = get_local_id(0);
    const ulong i = (ulong)get_group_id(0) * (2 * RED_WG) + lid;
    s[lid] = REDUCE_LOAD_PAIR(i, RED_WG);
    barrier(CLK_LOCAL_MEM_FENCE);
    const R r = reduce_unrolled(s, lid);
    if (lid == 0) out[out_off + get_group_id(0)] = r;
}

// reduce6: reduce5 where each work-item first combines many elements in a register, striding
// over the whole grid (2 * RED_WG * groups per iteration); the host launches a few work-groups
// per compute unit, so the tree runs once per work-group instead of once per 2*RED_WG elements.
__kernel __attribute__((reqd_work_group_size(RED_WG, 1, 1))) void reduce6(REDUCE_ARGS)
{
    in += in_off;
    const uint lid = get_local_id(0);
    const ulong grid = (ulong)(2 * RED_WG) * get_num_groups(0);
    R acc = R_ID;
    for (ulong i = (ulong)get_group_id(0) * (2 * RED_WG) + lid; i < n; i += grid) {
        acc = R_OP(acc, in[i]);
        if (i + RED_WG < n) acc = R_OP(acc, in[i + RED_WG]);
    }
    s[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    const R r = reduce_unrolled(s, lid);
    if (lid == 0) out[out_off + get_group_id(0)] = r;
}

#endif // RED_KERNELS == 0

#if RED_KERNELS != 2
// 16-byte loads in flight per work-item in the fast variants' grid stride (2, 4 or 8, chosen by
// the host: RED_LOADS).
#ifndef RED_LOADS
#define RED_LOADS 2
#endif

// The head and tail scalars of [0, n) around the 16-byte aligned vectors [head, tail): fewer than
// 2 * R_VEC in all, but the grid may be smaller than that: stride anyway.
inline R fast_scalars(__global const R *in, const ulong n, const ulong head, const ulong tail,
                      const ulong gid, const ulong gs)
{
    R acc = R_ID;
    for (ulong j = gid; j < head; j += gs) acc = R_OP(acc, in[j]);
    for (ulong j = tail + gid; j < n; j += gs) acc = R_OP(acc, in[j]);
    return acc;
}

// The fast variant's per-work-item value on GPUs: grid-stride over the vectors v[0, nvec),
// RED_LOADS loads in flight per work-item (stream_block.cl; consecutive work-items read
// consecutive vectors: coalesced).
#define RED_STEP(x, i) a0 = R_OPV(a0, x)
inline R fast_strided(__global const R *in, const ulong n, const ulong head, const ulong gid, const ulong gs)
{
    const ulong nvec = (n - head) / R_VEC;
    R acc = fast_scalars(in, n, head, head + nvec * R_VEC, gid, gs);
    __global const RV *v = (__global const RV *)(in + head);
    RV a0 = (RV)(R_ID);
#if T_BITS >= 32
    CLPRIM_STREAM(RV, v, gid, nvec, gs, RED_LOADS, RED_STEP);
#else
    CLPRIM_STREAM_WITH(CLPRIM_LOAD_PLAIN, RV, v, gid, nvec, gs, RED_LOADS, RED_STEP);
#endif
    return R_OP(acc, R_HREDUCE(a0));
}

// The per-work-item value on CPU devices. A CPU runs a work-group as a loop, one core each, so
// what pays there is a long contiguous stream per work-item (prefetchers, cache lines used
// whole), not coalescing across neighbours: work-item gid takes one contiguous chunk of vectors.
inline R fast_chunked(__global const R *in, const ulong n, const ulong head, const ulong gid, const ulong gs)
{
    const ulong nvec = (n - head) / R_VEC;
    R acc = fast_scalars(in, n, head, head + nvec * R_VEC, gid, gs);
    const ulong chunk = (nvec + gs - 1) / gs;
    const ulong begin = min(nvec, gid * chunk), end = min(nvec, begin + chunk);
    __global const RV *v = (__global const RV *)(in + head);
    RV a0 = (RV)(R_ID), a1 = (RV)(R_ID);
    ulong i = begin;
    for (; i + 1 < end; i += 2) {
        a0 = R_OPV(a0, v[i]);
        a1 = R_OPV(a1, v[i + 1]);
    }
    if (i < end) a0 = R_OPV(a0, v[i]);
    a0 = R_OPV(a0, a1);
    return R_OP(acc, R_HREDUCE(a0));
}

// fast: the bandwidth-bound version. 16-byte vector loads from the first 16-byte aligned element
// on (head = the scalars before it, computed by the host from in_off; buffers themselves are
// aligned far beyond that), independent accumulators per work-item so several loads are in
// flight, a grid-stride loop over a grid sized to fill the device, the few scalars of the head
// and tail taken by the first work-items, then one work-group reduction; the host reduces the
// partials with a second launch (reduce_fast_once below does it in the same launch).
__kernel void reduce_fast(__global const R *in, const ulong in_off, const ulong n, const ulong head,
                          __global R *out, const ulong out_off, __local R *s)
{
    R acc = fast_strided(in + in_off, n, head, get_global_id(0), get_global_size(0));
    acc = reduce_workgroup(acc, s);
    if (get_local_id(0) == 0) out[out_off + get_group_id(0)] = acc;
}

// fast_chunked: the fast variant's layout for CPU devices (the host picks it where the device is
// not a GPU). Launched with any local size; the host uses 1 on CPUs, which leaves the work-group
// reduction trivial.
__kernel void reduce_fast_chunked(__global const R *in, const ulong in_off, const ulong n, const ulong head,
                                  __global R *out, const ulong out_off, __local R *s)
{
    R acc = fast_chunked(in + in_off, n, head, get_global_id(0), get_global_size(0));
    acc = reduce_workgroup(acc, s);
    if (get_local_id(0) == 0) out[out_off + get_group_id(0)] = acc;
}

// One launch for the whole reduction: every work-group publishes its partial, then counts itself
// done on a global counter; the work-group that counts last (it knows every other partial has been
// published) reduces the partials, writes the result after them and sets the counter back to 0
// for the next launch. Partials are written and read with atomics, which act on the device's
// coherent level (no stale cache line in the last work-group), and the fence orders the partial
// before the count. 64-bit types need cl_khr_int64_base_atomics (the host defines RED_ATOM64).
#if T_BITS == 32 // (8/16-bit types: no one-launch variant, partials are narrower than the atomics)
#define R_BITS uint
#define R_PUBLISH(p, x) atomic_xchg((volatile __global uint *)(p), CLPRIM_CAT(as_, R_BITS)(x))
#define R_FETCH(p) CLPRIM_CAT(as_, R)(atomic_add((volatile __global uint *)(p), 0u))
#define RED_ONCE 1
#elif defined(RED_ATOM64) && T_BITS == 64
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#define R_BITS ulong
#define R_PUBLISH(p, x) atom_xchg((volatile __global ulong *)(p), CLPRIM_CAT(as_, R_BITS)(x))
#define R_FETCH(p) CLPRIM_CAT(as_, R)(atom_add((volatile __global ulong *)(p), 0ul))
#define RED_ONCE 1
#endif

#ifdef RED_ONCE
// Called by every work-item with its work-group's result r (the same in all): partials go to
// out[0, groups), the final value to *res (out + groups for a value the host reads back, or the
// caller's one-element result range).
inline void reduce_finish_once(R r, __global R *out, __global R *res, volatile __global uint *counter,
                               __local R *s, __local uint *is_last)
{
    const uint lid = get_local_id(0), L = get_local_size(0), G = get_num_groups(0);
    if (lid == 0) {
        R_PUBLISH(out + get_group_id(0), r);
        clprim_device_fence(); // the partial before the ticket, for every group (clprim_types.cl)
        *is_last = atomic_inc(counter) == G - 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (*is_last) { // uniform: every work-item of this group read the same flag
        clprim_device_fence();
        R a = R_ID;
        for (uint j = lid; j < G; j += L) a = R_OP(a, R_FETCH(out + j));
        a = reduce_workgroup(a, s);
        if (lid == 0) {
            *res = a;
            atomic_xchg(counter, 0u);
        }
    }
}

__kernel void reduce_fast_once(__global const R *in, const ulong in_off, const ulong n, const ulong head,
                               __global R *out, const ulong out_off, __global R *res, const ulong res_off, volatile __global uint *counter,
                               __local R *s)
{
    __local uint is_last;
    R acc = fast_strided(in + in_off, n, head, get_global_id(0), get_global_size(0));
    acc = reduce_workgroup(acc, s);
    reduce_finish_once(acc, out + out_off, res + res_off, counter, s, &is_last);
}

__kernel void reduce_fast_chunked_once(__global const R *in, const ulong in_off, const ulong n, const ulong head,
                                       __global R *out, const ulong out_off, __global R *res, const ulong res_off, volatile __global uint *counter,
                                       __local R *s)
{
    __local uint is_last;
    R acc = fast_chunked(in + in_off, n, head, get_global_id(0), get_global_size(0));
    acc = reduce_workgroup(acc, s);
    reduce_finish_once(acc, out + out_off, res + res_off, counter, s, &is_last);
}
#endif

#endif // RED_KERNELS != 2

#if RED_KERNELS == 2
// ---- Order-keeping reductions (operators that are associative but maybe not commutative) ----
// The fast kernels above interleave elements (grid stride, several accumulators, vectors
// reduced across), which only a commutative operator forgives. These keep the left-to-right
// order: every work-group reduces one contiguous segment of the input, tile after tile, and
// inside a tile every work-item reduces RED_ITEMS consecutive elements before an order-keeping
// work-group tree combines the work-items from left to right. The host combines the per-group
// results, in group order, with a second launch of one work-group.
#ifndef RED_ITEMS
#define RED_ITEMS 8
#endif
// One pad slot every 32 elements: RED_TILE_PAD (reduce_layout.cl, shared with the host).

// Group g reduces in[in_off + g*seg, min(n, (g+1)*seg)) into out[out_off + g]. tile holds
// RED_TILE_PAD(L * RED_ITEMS - 1) + 1 elements, s L elements.
__kernel void reduce_ordered(__global const R *in, const ulong in_off, const ulong n, const ulong seg,
                             __global R *out, const ulong out_off, __local R *tile, __local R *s)
{
    const uint lid = get_local_id(0), L = get_local_size(0);
    const uint tile_n = L * RED_ITEMS;
    const ulong b = (ulong)get_group_id(0) * seg, e = min(n, b + seg);
    in += in_off;
    R acc = R_ID; // the same in every work-item: the combination of the tiles so far
    for (ulong t = b; t < e; t += tile_n) {
        // Coalesced load (neighbours read neighbours); past the end, the identity.
        for (uint j = 0; j < RED_ITEMS; ++j) {
            const ulong i = t + j * L + lid;
            tile[RED_TILE_PAD(j * L + lid)] = i < e ? in[i] : R_ID;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        // Work-item lid takes the consecutive elements [lid*RED_ITEMS, (lid+1)*RED_ITEMS).
        R x = tile[RED_TILE_PAD(lid * RED_ITEMS)];
        for (uint j = 1; j < RED_ITEMS; ++j) x = R_OP(x, tile[RED_TILE_PAD(lid * RED_ITEMS + j)]);
        acc = R_OP(acc, reduce_workgroup(x, s)); // begins with a barrier: the tile is free again
    }
    if (lid == 0) out[out_off + get_group_id(0)] = acc;
}

// The same order on CPU devices, without local memory: work-item g (work-groups of one) reduces
// the consecutive elements [g*chunk, min(n, (g+1)*chunk)) in a plain loop.
__kernel void reduce_ordered_chunks(__global const R *in, const ulong in_off, const ulong n, const ulong chunk,
                                    __global R *out, const ulong out_off)
{
    const ulong g = get_global_id(0);
    const ulong b = g * chunk, e = min(n, b + chunk);
    in += in_off;
    R acc = R_ID;
    for (ulong i = b; i < e; ++i) acc = R_OP(acc, in[i]);
    out[out_off + g] = acc;
}
#endif // RED_KERNELS == 2

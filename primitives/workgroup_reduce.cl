// Work-group reduction building block, for any associative operator and any element type.
//
//   CLPRIM_DEFINE_WORKGROUP_REDUCE(NAME, TYPE, OP)
// defines
//   TYPE NAME(TYPE x, __local TYPE* scratch)
// which combines the x of every work-item of the work-group with OP (a function or a
// function-like macro of two TYPE values) and returns the result to every work-item.
// scratch must hold get_local_size(0) elements; any local size works (not only powers of two).
// Every work-item of the group must call it (it has barriers), and scratch may be reused by the
// caller as soon as it returns.
//
// The tree uses a barrier between every step: OpenCL promises no lockstep execution inside a
// wavefront/warp (PoCL runs a work-group as loops on a CPU), so work-items that read what others
// wrote to local memory must be separated from the write by a barrier.
//
//   CLPRIM_DEFINE_WORKGROUP_REDUCE_SG(NAME, TYPE, OP, SG_REDUCE)
// is the same function built on a sub-group reduction builtin (sub_group_reduce_add/min/max) for
// the first level; use it only where the host enabled sub-groups (CLPRIM_SUBGROUPS defined).
// Each sub-group reduces without local memory; the per-sub-group results then go through the
// barrier tree above.

// Sequential-addressing tree over scratch[0, m): active work-items stay contiguous and the
// number of them halves each step. Returns scratch[0] to every work-item.
#define CLPRIM_WG_REDUCE_TREE_(TYPE, OP, scratch, m, lid)                                  \
    do {                                                                                   \
        /* Fold the part above the largest power of two first, so the tree can halve. */  \
        uint p_ = 1;                                                                       \
        while ((p_ << 1) <= (m)) p_ <<= 1;                                                 \
        if ((lid) + p_ < (m)) scratch[lid] = OP(scratch[lid], scratch[(lid) + p_]);        \
        barrier(CLK_LOCAL_MEM_FENCE);                                                      \
        for (uint s_ = p_ >> 1; s_ > 0; s_ >>= 1) {                                        \
            if ((lid) < s_) scratch[lid] = OP(scratch[lid], scratch[(lid) + s_]);          \
            barrier(CLK_LOCAL_MEM_FENCE);                                                  \
        }                                                                                  \
    } while (0)

#define CLPRIM_DEFINE_WORKGROUP_REDUCE(NAME, TYPE, OP)                                     \
    TYPE NAME(TYPE x, __local TYPE* scratch)                                               \
    {                                                                                      \
        const uint lid = get_local_id(0);                                                  \
        const uint m = get_local_size(0);                                                  \
        scratch[lid] = x;                                                                  \
        barrier(CLK_LOCAL_MEM_FENCE);                                                      \
        CLPRIM_WG_REDUCE_TREE_(TYPE, OP, scratch, m, lid);                                 \
        const TYPE r = scratch[0];                                                         \
        /* Everyone has read scratch[0] before the caller may overwrite scratch. */        \
        barrier(CLK_LOCAL_MEM_FENCE);                                                      \
        return r;                                                                          \
    }

#define CLPRIM_DEFINE_WORKGROUP_REDUCE_SG(NAME, TYPE, OP, SG_REDUCE)                       \
    TYPE NAME(TYPE x, __local TYPE* scratch)                                               \
    {                                                                                      \
        const uint lid = get_local_id(0);                                                  \
        const uint m = get_num_sub_groups();                                               \
        x = SG_REDUCE(x);                                                                  \
        if (get_sub_group_local_id() == 0) scratch[get_sub_group_id()] = x;                \
        barrier(CLK_LOCAL_MEM_FENCE);                                                      \
        CLPRIM_WG_REDUCE_TREE_(TYPE, OP, scratch, m, lid);                                 \
        const TYPE r = scratch[0];                                                         \
        barrier(CLK_LOCAL_MEM_FENCE);                                                      \
        return r;                                                                          \
    }

// Work-group reduction building block, for any associative operator and any element type.
//
//   CLPRIM_DEFINE_WORKGROUP_REDUCE(NAME, TYPE, OP)
// defines
//   TYPE NAME(TYPE x, __local TYPE* scratch)
// which combines the x of every work-item of the work-group with OP (a function or a
// function-like macro of two TYPE values) and returns the result to every work-item.
// scratch must hold get_local_size(0) elements; any local size works (not only powers of two).
// Element order is kept (the left operand is always the earlier run of work-items), so OP need
// only be associative.
// Every work-item of the group must call it (it has barriers), and scratch may be reused by the
// caller as soon as it returns.
//
// The tree uses a barrier between every step: OpenCL promises no lockstep execution inside a
// wavefront/warp (PoCL runs a work-group as loops on a CPU), so work-items that read what others
// wrote to local memory must be separated from the write by a barrier.
//
//   CLPRIM_DEFINE_WORKGROUP_REDUCE_SG(NAME, TYPE, OP, SG_REDUCE)
// is the same function built on a sub-group reduction builtin (sub_group_reduce_add/min/max) for
// the first level; use it only where the host enabled sub-groups (CLPRIM_SUBGROUPS defined) and
// for commutative operators (the builtins give no order guarantee).
// Each sub-group reduces without local memory; the per-sub-group results then go through the
// barrier tree above.

// Order-keeping tree over scratch[0, m) (any m, not only powers of two): in the step of stride
// d, work-item lid combines the runs starting at 2*d*lid and 2*d*lid + d, so scratch[2*d*lid]
// always holds the combination of a contiguous run, earlier elements on the left. Operators
// that are only associative (not commutative) thus get the left-to-right result. The active
// work-items are the first ones (no divergence inside a wavefront until few remain).
// Returns with scratch[0] holding the result, after a barrier.
#define CLPRIM_WG_REDUCE_TREE_(TYPE, OP, scratch, m, lid)                                  \
    do {                                                                                   \
        for (uint d_ = 1; d_ < (m); d_ <<= 1) {                                            \
            const uint i_ = 2 * d_ * (lid);                                                \
            if (i_ + d_ < (m)) scratch[i_] = OP(scratch[i_], scratch[i_ + d_]);            \
            barrier(CLK_LOCAL_MEM_FENCE);                                                  \
        }                                                                                  \
    } while (0)

#define CLPRIM_DEFINE_WORKGROUP_REDUCE(NAME, TYPE, OP)                                     \
    TYPE NAME(TYPE x, __local TYPE* scratch)                                               \
    {                                                                                      \
        const uint lid = get_local_id(0);                                                  \
        const uint m = get_local_size(0);                                                  \
        barrier(CLK_LOCAL_MEM_FENCE); /* the caller may still be reading scratch */       \
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
        barrier(CLK_LOCAL_MEM_FENCE); /* the caller may still be reading scratch */       \
        if (get_sub_group_local_id() == 0) scratch[get_sub_group_id()] = x;                \
        barrier(CLK_LOCAL_MEM_FENCE);                                                      \
        CLPRIM_WG_REDUCE_TREE_(TYPE, OP, scratch, m, lid);                                 \
        const TYPE r = scratch[0];                                                         \
        barrier(CLK_LOCAL_MEM_FENCE);                                                      \
        return r;                                                                          \
    }

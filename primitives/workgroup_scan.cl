// Work-group scans over __local scratch: the building blocks of the device-wide scans and of the
// radix sort. 1-D work-groups of any size up to the device maximum (not only powers of two).
//
// Every function contains barriers, so all work-items of the group must call it. Each starts and
// ends with a barrier: the caller may call them back to back with the same scratch, and may reuse
// the scratch freely before and after a call.
//
// Generated for uint always, and for the program's type T when T is defined (e.g. T=long gives
// wg_inclusive_scan_hs_long, ...; the wg_*_T spellings below name the T versions). Other programs
// may instantiate more types with WG_SCAN_DEFINE(type) (WG_SCAN_DEFINE_EXPANDED(K) for a macro).
// WG_SCAN_DEFINE also defines the public names clprim_wg_inclusive_scan_TYPE and
// clprim_wg_exclusive_scan_TYPE (workgroup_api.cl, clprim::workgroup_source()).
// This file compiles on its own (no clprim_types.cl needed) for clprim::workgroup_source().
//
//   TYPE wg_inclusive_scan_hs_TYPE(TYPE x, __local TYPE* scratch)
//        Hillis & Steele: log2(n) steps, element i adds element i - 2^d; double-buffered.
//   TYPE wg_exclusive_scan_hs_TYPE(TYPE x, __local TYPE* scratch, TYPE* total)
//   TYPE wg_exclusive_scan_blelloch_TYPE(TYPE x, __local TYPE* scratch, TYPE* total)
//        Blelloch: up-sweep reduction tree, clear the root, down-sweep; padded against bank
//        conflicts.
//   TYPE wg_exclusive_scan_TYPE(TYPE x, __local TYPE* scratch, TYPE* total)
//        The quickest of these on the devices we target (Hillis & Steele: log2(n) barriers
//        against Blelloch's 2*log2(n)+3; no sub-group functions, as our programs are built as
//        OpenCL C 1.2 and NVIDIA does not offer cl_khr_subgroups).
//
// *total receives the sum over the whole work-group (the same value in every work-item).
// Sums of floats are added left to right in each step (earlier elements as the left operand).
//
// WG_SCAN_DEFINE_OP(NAME, TYPE, OP, ID) defines the same four scans for any associative operator
// (wg_inclusive_scan_hs_NAME, ...; *total is then the combination of the whole work-group): the
// sums above are its instance with OP = +, and the device-wide scans (scan.cl) instantiate it for
// a user's operator. Every step combines a run of earlier work-items (left) with a later one.

#ifndef CLPRIM_WORKGROUP_SCAN_CL
#define CLPRIM_WORKGROUP_SCAN_CL

// Blelloch's tree touches indices with large power-of-two strides; one pad slot every 32
// elements spreads them over the 32 banks of local memory.
#define WG_SCAN_PAD(i) ((i) + ((i) >> 5))

// Elements of scratch needed for a work-group of n items: Hillis & Steele uses 2n (two buffers);
// Blelloch pads a tree over the next power of two m < 2n.
#define WG_SCAN_SCRATCH(n) (2 * (n) + ((2 * (n)) >> 5) + 1)

// The scans over any associative operator OP (a function or function-like macro of two TYPE
// values) with identity ID, named wg_*_NAME. Element order is kept everywhere: the left operand
// always covers earlier work-items than the right one, so OP need not be commutative.
#define WG_SCAN_DEFINE_OP(NAME, TYPE, OP, ID)                                                     \
    TYPE wg_inclusive_scan_hs_##NAME(TYPE x, __local TYPE* scratch)                               \
    {                                                                                             \
        const uint n = (uint)get_local_size(0);                                                   \
        const uint lid = (uint)get_local_id(0);                                                   \
        __local TYPE* src = scratch;                                                              \
        __local TYPE* dst = scratch + n;                                                          \
        barrier(CLK_LOCAL_MEM_FENCE); /* the caller may still be reading scratch */              \
        src[lid] = x;                                                                             \
        barrier(CLK_LOCAL_MEM_FENCE);                                                             \
        for (uint d = 1; d < n; d <<= 1) {                                                        \
            /* x caches src[lid]; only the neighbour d to the left is read, from the buffer */   \
            /* no one writes in this step, so one barrier per step suffices */                   \
            if (lid >= d) x = OP(src[lid - d], x);                                                \
            dst[lid] = x;                                                                         \
            barrier(CLK_LOCAL_MEM_FENCE);                                                         \
            __local TYPE* t = src;                                                                \
            src = dst;                                                                            \
            dst = t;                                                                              \
        }                                                                                         \
        return x;                                                                                 \
    }                                                                                             \
                                                                                                  \
    TYPE wg_exclusive_scan_hs_##NAME(TYPE x, __local TYPE* scratch, TYPE* total)                  \
    {                                                                                             \
        const uint n = (uint)get_local_size(0);                                                   \
        const uint lid = (uint)get_local_id(0);                                                   \
        __local TYPE* src = scratch;                                                              \
        __local TYPE* dst = scratch + n;                                                          \
        barrier(CLK_LOCAL_MEM_FENCE);                                                             \
        src[lid] = x;                                                                             \
        barrier(CLK_LOCAL_MEM_FENCE);                                                             \
        for (uint d = 1; d < n; d <<= 1) {                                                        \
            if (lid >= d) x = OP(src[lid - d], x);                                                \
            dst[lid] = x;                                                                         \
            barrier(CLK_LOCAL_MEM_FENCE);                                                         \
            __local TYPE* t = src;                                                                \
            src = dst;                                                                            \
            dst = t;                                                                              \
        }                                                                                         \
        /* src holds every inclusive prefix: the exclusive one is the left neighbour's */        \
        /* (read, not x minus the element: exact for floats, and OP need have no inverse) */     \
        const TYPE r = lid > 0 ? src[lid - 1] : (ID);                                             \
        *total = src[n - 1];                                                                      \
        barrier(CLK_LOCAL_MEM_FENCE);                                                             \
        return r;                                                                                 \
    }                                                                                             \
                                                                                                  \
    TYPE wg_exclusive_scan_blelloch_##NAME(TYPE x, __local TYPE* scratch, TYPE* total)            \
    {                                                                                             \
        const uint n = (uint)get_local_size(0);                                                   \
        const uint lid = (uint)get_local_id(0);                                                   \
        uint m = 1; /* the tree spans the next power of two, m < 2n */                           \
        while (m < n) m <<= 1;                                                                    \
        barrier(CLK_LOCAL_MEM_FENCE);                                                             \
        scratch[WG_SCAN_PAD(lid)] = x;                                                            \
        if (lid + n < m) scratch[WG_SCAN_PAD(lid + n)] = (ID); /* leaves past n */               \
        barrier(CLK_LOCAL_MEM_FENCE);                                                             \
        /* up-sweep: node (2k+2)d-1 gathers its 2d leaves (left subtree a, right subtree b) */   \
        for (uint d = 1; d < m; d <<= 1) {                                                        \
            if (lid < m / (2 * d)) {                                                              \
                const uint a = (2 * lid + 1) * d - 1;                                             \
                const uint b = a + d;                                                             \
                scratch[WG_SCAN_PAD(b)] = OP(scratch[WG_SCAN_PAD(a)], scratch[WG_SCAN_PAD(b)]);   \
            }                                                                                     \
            barrier(CLK_LOCAL_MEM_FENCE);                                                         \
        }                                                                                         \
        *total = scratch[WG_SCAN_PAD(m - 1)];                                                     \
        barrier(CLK_LOCAL_MEM_FENCE); /* everyone has read the root before it is cleared */      \
        if (lid == 0) scratch[WG_SCAN_PAD(m - 1)] = (ID);                                         \
        barrier(CLK_LOCAL_MEM_FENCE);                                                             \
        /* down-sweep: a node's prefix (everything before its subtree) goes to its left */       \
        /* child; the right child gets the prefix combined with the left child's subtree */      \
        for (uint d = m >> 1; d >= 1; d >>= 1) {                                                  \
            if (lid < m / (2 * d)) {                                                              \
                const uint a = (2 * lid + 1) * d - 1;                                             \
                const uint b = a + d;                                                             \
                const TYPE left = scratch[WG_SCAN_PAD(a)];                                        \
                const TYPE prefix = scratch[WG_SCAN_PAD(b)];                                      \
                scratch[WG_SCAN_PAD(a)] = prefix;                                                 \
                scratch[WG_SCAN_PAD(b)] = OP(prefix, left);                                       \
            }                                                                                     \
            barrier(CLK_LOCAL_MEM_FENCE);                                                         \
        }                                                                                         \
        const TYPE r = scratch[WG_SCAN_PAD(lid)];                                                 \
        barrier(CLK_LOCAL_MEM_FENCE);                                                             \
        return r;                                                                                 \
    }                                                                                             \
                                                                                                  \
    TYPE wg_exclusive_scan_##NAME(TYPE x, __local TYPE* scratch, TYPE* total)                     \
    {                                                                                             \
        return wg_exclusive_scan_hs_##NAME(x, scratch, total);                                    \
    }

// The sums (the library's radix sort, copy_if and histogram build on these names) and their
// public names (clprim::workgroup_source()): the same functions.
#define WG_SCAN_ADD_(a, b) ((a) + (b))
#define WG_SCAN_DEFINE(TYPE)                                                                      \
    WG_SCAN_DEFINE_OP(TYPE, TYPE, WG_SCAN_ADD_, (TYPE)0)                                          \
    TYPE clprim_wg_inclusive_scan_##TYPE(TYPE x, __local TYPE* scratch)                           \
    {                                                                                             \
        return wg_inclusive_scan_hs_##TYPE(x, scratch);                                           \
    }                                                                                             \
    TYPE clprim_wg_exclusive_scan_##TYPE(TYPE x, __local TYPE* scratch, TYPE* total)              \
    {                                                                                             \
        return wg_exclusive_scan_##TYPE(x, scratch, total);                                       \
    }

WG_SCAN_DEFINE(uint)

// The program's own type, unless it is uint (defined above already).
// (Through a second macro so that T is expanded before ## pastes it into the names.)
#define WG_SCAN_DEFINE_EXPANDED(TYPE) WG_SCAN_DEFINE(TYPE)
// (Only in the library's own programs, which join clprim_types.cl first: a program built from
// clprim::workgroup_source() has none of these macros.)
#if defined(CLPRIM_CAT) && defined(T) && !(T_IS_FLOAT == 0 && T_IS_SIGNED == 0 && T_BITS == 32)
WG_SCAN_DEFINE_EXPANDED(T)
#endif

#if defined(CLPRIM_CAT) && defined(T)
#define wg_inclusive_scan_hs_T CLPRIM_CAT(wg_inclusive_scan_hs_, T)
#define wg_exclusive_scan_hs_T CLPRIM_CAT(wg_exclusive_scan_hs_, T)
#define wg_exclusive_scan_blelloch_T CLPRIM_CAT(wg_exclusive_scan_blelloch_, T)
#define wg_exclusive_scan_T CLPRIM_CAT(wg_exclusive_scan_, T)
#endif

#endif // CLPRIM_WORKGROUP_SCAN_CL

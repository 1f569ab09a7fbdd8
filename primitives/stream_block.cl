// The streaming read of the read-bound reductions, written once: reduce's fast kernels, the long
// pieces of segmented_reduce's one launch and min/max_element's 16-byte loop take their input
// through it (joined before their files).
//
// CLPRIM_STREAM(VT, v, first, q, stride, LOADS, STEP) visits v[i] for i = first, first + stride,
// ... < q (ulong indices; a grid stride or a work-group's share of a range): LOADS loads are
// issued together before any of them is used (a memory-bound loop needs many reads in flight per
// work-item, not a read then the dependent operation), then STEP(x, i) is applied to each, in
// increasing i; the fewer than LOADS left at the end one at a time. STEP is a macro or function
// of the value (type VT) and its index; the caller keeps its accumulators.
//
// CLPRIM_LOAD16(VT, p): a 16-byte vector (VT: uint4, int4, float4, ulong2, long2, double2) at p.
// With CLPRIM_STREAM_PTX (NVIDIA builds, CLPRIM_PTX; set by the host's stream_block.hpp) it is
// one `ld.global.nc.L1::no_allocate.L2::256B`: through the read-only path, no L1 line kept (each
// byte is read once), and a miss fetches 256 bytes into L2 (the neighbours' sectors come with
// it); elsewhere a plain load. The data must not change during the kernel (true for every user
// here: their inputs are read-only).
//
// Required: nothing beyond clprim_types.cl (CLPRIM_CAT); optional: CLPRIM_STREAM_PTX (takes
// effect with CLPRIM_PTX).
#ifndef CLPRIM_CAT
#error "stream_block.cl needs clprim_types.cl (CLPRIM_CAT)"
#endif
#ifndef CLPRIM_STREAM_BLOCK_CL
#define CLPRIM_STREAM_BLOCK_CL

// (CLPRIM_STREAM_PTX without CLPRIM_PTX, a context mixing vendors: plain loads.)
#if defined(CLPRIM_STREAM_PTX) && CLPRIM_STREAM_PTX && defined(CLPRIM_PTX)
inline uint4 clprim_load16_ptx(__global const void* p)
{
    uint4 r;
    asm("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
        : "l"(p));
    return r;
}
#define CLPRIM_LOAD16(VT, p) CLPRIM_CAT(as_, VT)(clprim_load16_ptx((__global const void*)(p)))
#else
#define CLPRIM_LOAD16(VT, p) (*(__global const VT*)(p))
#endif

// Plain loads for vectors that are not 16 bytes (uchar4, ushort4: the 8/16-bit reductions).
#define CLPRIM_LOAD_PLAIN(VT, p) (*(__global const VT*)(p))

#define CLPRIM_STREAM_WITH(LOAD, VT, v, first, q, stride, LOADS, STEP)                              \
    do {                                                                                           \
        const ulong q_ = (q), st_ = (stride);                                                      \
        ulong i_ = (first);                                                                        \
        for (; i_ + (LOADS - 1) * st_ < q_; i_ += (LOADS) * st_) {                                 \
            VT x_[LOADS];                                                                          \
            for (uint u_ = 0; u_ < (LOADS); ++u_) x_[u_] = LOAD(VT, (v) + i_ + u_ * st_); \
            for (uint u_ = 0; u_ < (LOADS); ++u_) STEP(x_[u_], i_ + u_ * st_);  \
        }                                                                                          \
        for (; i_ < q_; i_ += st_) {                                                               \
            const VT y_ = LOAD(VT, (v) + i_);                                                      \
            STEP(y_, i_);                                                                          \
        }                                                                                          \
    } while (0)

#define CLPRIM_STREAM(VT, v, first, q, stride, LOADS, STEP)                                        \
    CLPRIM_STREAM_WITH(CLPRIM_LOAD16, VT, v, first, q, stride, LOADS, STEP)

#endif

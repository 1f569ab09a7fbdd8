// The small radix path's third one-work-group kernel (sort_small.cl has the other two and the idea:
// a bitonic network over (sortable key[, index]) elements, stable through the index, the range
// padded to the power of two P with all-ones keys).
//
// sort_small_warp: each work-item holds SMALL_E consecutive elements in registers (work-item t
// holds [t E, (t + 1) E), the layout never changes). A compare-exchange step at index bit b
//   - below LOG_E pairs two of a work-item's own registers;
//   - at LOG_E + tb, tb < SW_LANE_LOG, pairs work-item t with t ^ 2^tb of the same warp: one warp
//     shuffle (PTX shfl.sync.bfly) per element, no local memory, no barrier;
//   - higher pairs work-items of different warps: every element to local memory, one barrier, the
//     partner's element back (an exchange).
// Each work-item keeps the smaller or the larger of the pair, as its half of the pair says. For
// 1024 keys in 128 work-items of 8 on NVIDIA that is 3 barriers (the registers kernel's remaps
// take 19). Without shuffles (SW_LANE_LOG 0: every device but NVIDIA, and the tests on CPU
// devices) every step between work-items is an exchange: the same network, one barrier a step.
//
// Required: sort_key_order.cl and sort_small.cl joined before (with the registers kernel's
// macros: SMALL_P, SMALL_WG, SMALL_E, SMALL_LOG_E, SMALL_LOG_P, SMALL_BUFFERS), and SW_LANE_LOG
// (work-item bits exchanged by warp shuffles: 0, or on NVIDIA min(5, log2(SMALL_WG))) with
// SW_LANE_MASK (the shuffles' member mask: the warp's work-items of this group).
#ifndef SMALL_E
#error "sort_small_warp.cl needs sort_small.cl joined before it, with SMALL_E and its macros"
#endif
#ifndef SW_LANE_LOG
#error "sort_small_warp.cl needs SW_LANE_LOG (0: no warp shuffles)"
#endif
#if SW_LANE_LOG > 0 && !defined(SW_LANE_MASK)
#error "sort_small_warp.cl needs SW_LANE_MASK with SW_LANE_LOG > 0"
#endif
#if SW_LANE_LOG > 5 || (1 << SW_LANE_LOG) > SMALL_WG
#error "sort_small_warp.cl: SW_LANE_LOG at most 5 and at most log2(SMALL_WG)"
#endif

// The element of work-item t ^ m of this warp (every work-item of the warp calls it).
#if SW_LANE_LOG > 0
inline uint sw_shfl32(uint v, uint m)
{
    uint r;
    asm("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, %3;" : "=r"(r) : "r"(v), "r"(m), "r"((uint)SW_LANE_MASK));
    return r;
}
inline small_elem sw_shfl(small_elem v, uint m)
{
#if defined(SE_WIDE)
    const ulong kx = v.x, iy = v.y;
    const ulong k = ((ulong)sw_shfl32((uint)(kx >> 32), m) << 32) | sw_shfl32((uint)kx, m);
    return (small_elem)(k, (ulong)sw_shfl32((uint)iy, m)); // indices < 2^32
#elif (!defined(SORT_HAS_VALUES) && K_BITS == 64) || (defined(SORT_HAS_VALUES) && K_BITS == 32)
    return ((ulong)sw_shfl32((uint)(v >> 32), m) << 32) | sw_shfl32((uint)v, m);
#else
    return (small_elem)sw_shfl32((uint)v, m);
#endif
}
#endif

// The smaller (take_min) or the larger of x and y in the network's order.
inline small_elem sw_pick(small_elem x, small_elem y, uint take_min)
{
#ifdef SE_WIDE
    const uint y_first = (uint)(y.x < x.x) | ((uint)(y.x == x.x) & (uint)(y.y < x.y));
    return y_first == take_min ? y : x;
#else
    return take_min ? min(x, y) : max(x, y);
#endif
}

__kernel __attribute__((reqd_work_group_size(SMALL_WG, 1, 1)))
void sort_small_warp(__global K* keys, ulong key_off, SMALL_VALUE_ARGS uint n)
{
    __local small_elem buf[SMALL_BUFFERS][SMALL_P];
    const uint lid = get_local_id(0);
    keys += key_off;
    SMALL_VALUES_AT;
    small_elem x[SMALL_E];
    const uint tp = lid << SMALL_LOG_E;
    small_load(x, tp, n, keys);
    // Stages 1 .. LOG_E: inside the work-item (bit LOG_E of its indices is bit 0 of lid).
    small_sort_own(x, lid & 1u);
    uint exchanges = 0;
    for (uint s = SMALL_LOG_E + 1; s <= SMALL_LOG_P; ++s) {
        const uint up = ((lid >> (s - SMALL_LOG_E)) & 1u) == 0u; // this block ascends
        // Steps at the work-item bits s - 1 - LOG_E .. 0.
        for (int tb = (int)(s - 1 - SMALL_LOG_E); tb >= 0; --tb) {
            const uint take_min = (((lid >> tb) & 1u) == 0u) == up; // the lower of the pair keeps the first
#if SW_LANE_LOG > 0
            if (tb < SW_LANE_LOG) {
#pragma unroll
                for (uint j = 0; j < SMALL_E; ++j) x[j] = sw_pick(x[j], sw_shfl(x[j], 1u << tb), take_min);
                continue;
            }
#endif
            __local small_elem* lb = buf[exchanges % SMALL_BUFFERS];
#if SMALL_BUFFERS == 1
            if (exchanges > 0) barrier(CLK_LOCAL_MEM_FENCE); // the last exchange's reads are done
#endif
#pragma unroll
            for (uint j = 0; j < SMALL_E; ++j) lb[j * SMALL_WG + lid] = x[j];
            barrier(CLK_LOCAL_MEM_FENCE);
            const uint partner = lid ^ (1u << tb);
#pragma unroll
            for (uint j = 0; j < SMALL_E; ++j) x[j] = sw_pick(x[j], lb[j * SMALL_WG + partner], take_min);
            ++exchanges;
        }
        // Steps at the register bits LOG_E - 1 .. 0 (one direction for the work-item).
#pragma unroll
        for (int rb = SMALL_LOG_E - 1; rb >= 0; --rb) small_step(x, (uint)rb, up != 0u);
    }
    small_write_back(x, tp, n, keys, values);
}

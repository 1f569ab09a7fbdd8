// The by-key family's look-back kernel that keeps each work-item's elements in registers from
// the load to the store (CLPRIM_BY_KEY_KERNEL=registers; by_key_gather.cl is the default on
// GPUs: this one took 94 registers a work-item for unique, 138 for reduce_by_key on the H100).
//
// Joined after by_key_tile.cl (same macros as by_key.cl).

#ifndef BK_TILE_PAD
#error "by_key_registers.cl needs by_key_lookback.cl and by_key_tile.cl first"
#endif

// One work-group per tile; tiles are numbered in the order their work-groups start (status[0]
// counts them; the last one resets it for the next launch), so a tile only ever waits on tiles
// that have started. The idea, step by step:
//   load     the tile into local memory, every load of a full tile issued before any store
//            (many reads in flight per work-item), then each work-item takes its BK_ITEMS
//            consecutive elements into registers;
//   fold     each work-item folds its elements to one pair (its head flags kept as bits);
//   scan     the work-group scans the pairs; the tile publishes its pair, looks back, publishes
//            its prefix: now every work-item knows the pair of everything before it;
//   compact  each work-item writes its results into local memory at their places in the tile's
//            contiguous run of results (the tile's run starts at the count of heads before it);
//   store    the work-group writes the run out, consecutive work-items to consecutive addresses.
// tk, tv: BK_TILE_PAD(tile) + 1 elements each (tv unused without values): the staged input, then
// the staged results.
__kernel void by_key_lookback(BK_ARGS, __global volatile ulong* status, uint epoch, __local uint* sc, __local V* sv,
                              __local K* tk, __local V* tv)
{
    BK_TILE_PROLOGUE();
    K kr[BK_ITEMS];
#if BK_LOADS_VALUES
    V vr[BK_ITEMS];
#endif
    BK_TILE_TO_REGS();
    // Fold, in the order bk_tile_pair repeats for the fallback.
    BK_FOLD_SHARE(kr[j], BK_REG_VALUE(j));
    uint ec, tc;
    V ev, tvv;
    bk_tile_scan(c, v, sc, sv, &ec, &ev, &tc, &tvv);

    const bool in_place = BK_MODE == 2 && (__global const V*)(out2 + out2_off) == vals;
    uint pc;
    V pv;
    bk_tile_chain(slots, epoch, t, tc, tvv, keys, vals, n, in_place, sc, sv, lb_flag, lb_c, lb_v, lb_state, &lb_acc,
                  &pc, &pv);
    bk_combine(pc, pv, &ec, &ev); // this work-item's exclusive pair over the whole range
    out1 += out1_off;
    out2 += out2_off;

    // Compact into local memory (everyone has long read tk and tv into registers: the scan's and
    // the look-back's barriers lie between), then store. Run index r of this tile's results goes
    // to slot r - pc (reduce_by_key / run-length: the run that a head closes is r = c - 1, so the
    // slots are shifted by one: slot r - pc + 1, and tile 0 leaves slot 0 empty).
    uint cc = ec;
    V vv = ev;
    K p = prev;
    const bool last_tile = base + count == n;
#pragma unroll
    for (uint j = 0; j < BK_ITEMS; ++j) {
        if (j < mine) {
            const ulong i = from + j;
            const uint h = (heads >> j) & 1u;
            const V x = BK_REG_VALUE(j);
            const K k = kr[j];
#if BK_MODE == 1 || BK_MODE == 4
            if (h && i > 0) {
                tk[cc - pc] = p;
                tv[cc - pc] = vv;
            }
#elif BK_MODE == 2
            if (!(flags & BK_INCLUSIVE)) tv[BK_TILE_PAD(first + j)] = h ? init : BK_OP(init, vv);
#elif BK_MODE == 3
            if (h) tk[cc - pc] = k;
#else // 5
            if (h) tk[cc - pc] = k;
            else tk[tc + (first + j) - (cc - pc)] = k;
#endif
            vv = h ? x : BK_OP(vv, x);
            cc += h;
#if BK_MODE == 1 || BK_MODE == 4
            if (i == n - 1) {
                tk[cc - pc] = k;
                tv[cc - pc] = vv;
            }
#elif BK_MODE == 2
            if (flags & BK_INCLUSIVE) tv[BK_TILE_PAD(first + j)] = vv;
#endif
            if (i == n - 1 && (flags & BK_WRITE_COUNT)) count_out[count_off] = cc;
            p = k;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#if BK_MODE == 1 || BK_MODE == 4
    const uint m = tc + (last_tile ? 1u : 0u);
    for (uint s = lid + (t == 0 ? 1u : 0u); s < m; s += wg) {
        const ulong o = (ulong)pc + s - 1;
        if (o < cap1) out1[o] = tk[s];
        if (o < cap2) out2[o] = tv[s];
    }
#elif BK_MODE == 2
    for (uint j = lid; j < count; j += wg) out2[base + j] = tv[BK_TILE_PAD(j)];
#elif BK_MODE == 3
    for (uint s = lid; s < tc; s += wg) {
        const ulong o = (ulong)pc + s;
        if (o < cap1) out1[o] = tk[s];
    }
#else // 5
    for (uint s = lid; s < count; s += wg) {
        if (s < tc) {
            const ulong o = (ulong)pc + s;
            if (o < cap1) out1[o] = tk[s];
        } else {
            const ulong o = base - pc + (s - tc);
            if (o < cap2) out2[o] = tk[s];
        }
    }
#endif
}

// The lean pair tile of by_key_lean.cl with two sub-tiles a look-back (BK_LEAN_SUB=2; host:
// CLPRIM_BY_KEY_LEAN_SUB=2; reduce_by_key and run_length_encode). A tile's look-back costs about
// the same however large the tile (one wait for its predecessors, the work-group idle meanwhile),
// and the registers and the 48 KB of local memory a work-group bound the lean tile at 256 x 20.
// Here a work-group takes two such sub-tiles, one after the other through the same registers,
// and looks back once for both: half the waits.
//   A        the first sub-tile as by_key_lean.cl: load, fold, scan, and its results staged;
//   B        the second sub-tile's elements into the same registers (16-byte loads where full
//            and aligned, else element by element: local memory holds A's results), fold, scan;
//            its exclusive pairs combined behind A's pair (the places of B's results among the
//            tile's), the tile's pair (A's, then B's where B has elements) published;
//   stage B  behind A's results where both fit the staging area (BK_TILE_PAD(sub-tile) + 1
//            places: runs of 1 fill it with A's alone), else after the look-back and A's stores,
//            B's elements read again;
//   chain    the look-back (by_key_lean.cl's forms), store as by_key_lean.cl.
// The decoupled fallback computes a tile's pair the same way (by_key_lookback.cl, bk_tile_pair2).
//
// Joined after by_key_lean.cl (its macros; same macros as by_key.cl).

#ifndef BK_TILE_PAD
#error "by_key_lean2.cl needs by_key_lookback.cl, by_key_tile.cl and by_key_lean.cl first"
#endif

#if (BK_MODE == 1 || BK_MODE == 4) && BK_LEAN_SUB == 2

#if BK_LEAN_PERSIST || BK_LEAN_RELOAD || BK_LEAN_WALK_FIRST || BK_LEAN_PREFETCH || (BK_DIAG & 20)
#error "by_key_lean2.cl: BK_LEAN_SUB=2 goes without BK_LEAN_PERSIST, _RELOAD, _WALK_FIRST, _PREFETCH, BK_DIAG & 20"
#endif

// kr (vr), prev: this work-item's elements [from, from + mine) of a sub-tile with cnt elements
// at sbase, without local memory: 16-byte loads where the sub-tile is full and aligned, else
// element by element.
#define BK_LEAN2_LOAD_GLOBAL_(SBASE, CNT, FROM, MINE)                                             \
    {                                                                                             \
        const bool direct_ = BK_LEAN_VEC && (CNT) == sub_n && ((ulong)(keys + (SBASE)) & 15) == 0 && \
                             (!BK_LOADS_VALUES || ((ulong)(vals + (SBASE)) & 15) == 0);            \
        if (direct_) {                                                                            \
            const ulong from = (FROM);                                                            \
            BK_LEAN2_DIRECT_();                                                                   \
        } else {                                                                                  \
            _Pragma("unroll") for (uint j = 0; j < BK_ITEMS; ++j)                                 \
            {                                                                                     \
                kr[j] = (K)0; /* (every register written: nothing older kept alive) */             \
                BK_LEAN2_ZERO_(j)                                                                 \
                if (j < (MINE)) {                                                                 \
                    kr[j] = keys[(FROM) + j];                                                     \
                    BK_LEAN2_VALUE_(j, (FROM) + j)                                                \
                }                                                                                 \
            }                                                                                     \
        }                                                                                         \
        if ((MINE) > 0) prev = keys[(FROM) - 1];                                                  \
    }
#if BK_LOADS_VALUES
#define BK_LEAN2_VALUE_(j, i) vr[j] = vals[i];
#define BK_LEAN2_ZERO_(j) vr[j] = (V)0;
#else
#define BK_LEAN2_VALUE_(j, i)
#define BK_LEAN2_ZERO_(j)
#endif
#if BK_LEAN_VEC
#define BK_LEAN2_DIRECT_() BK_LEAN_LOAD_DIRECT_()
#else
#define BK_LEAN2_DIRECT_()
#endif

// One work-group per tile of two sub-tiles (bk_tile_index); tk, tv as by_key_lean's.
__kernel void by_key_lean(BK_ARGS, __global volatile ulong* status, uint epoch, __local uint* sc, __local V* sv,
                          __local K* tk, __local V* tv)
{
    BK_TILE_LOCALS();
    const uint sub_n = wg * BK_ITEMS;
    const uint cap = BK_TILE_PAD(sub_n) + 1u; // places of the staging area
    keys += keys_off;
    vals += vals_off;
    out1 += out1_off;
    out2 += out2_off;
    const uint first = lid * BK_ITEMS;
    const uint t = bk_tile_index(status, &tile_id);
    const ulong base = (ulong)t * (2u * sub_n);
    const uint count = (uint)min((ulong)(2u * sub_n), n - base);
    K kr[BK_ITEMS];
#if BK_LOADS_VALUES
    V vr[BK_ITEMS];
#endif
    K prev = (K)0;

    // A: as by_key_lean.cl (through local memory where not full and aligned).
    const uint count_a = min(count, sub_n);
    const ulong from_a = base + first;
    const uint mine_a = first < count_a ? min((uint)BK_ITEMS, count_a - first) : 0u;
#if BK_LEAN_VEC
    const bool direct = count_a == sub_n && ((ulong)(keys + base) & 15) == 0 &&
                        (!BK_LOADS_VALUES || ((ulong)(vals + base) & 15) == 0);
#else
    const bool direct = false;
#endif
    if (direct) {
        const ulong from = from_a;
        BK_LEAN2_DIRECT_();
        if (from > 0) prev = keys[from - 1];
    } else {
        bk_stage_rows(keys, vals, base, count_a, tk, tv, &key_before);
    }
#ifdef BK_PTX // (the same in the whole group; elsewhere outside the branch: PoCL and barriers under conditions)
    if (!direct)
#endif
        barrier(CLK_LOCAL_MEM_FENCE);
    if (!direct) {
        const uint mine = mine_a;
        BK_TILE_TO_REGS();
        if (mine > 0 && from_a > 0) prev = lid > 0 ? tk[BK_TILE_PAD(first - 1)] : key_before;
    }
    uint tc, ec_a;
    V tvv, ev_a;
    {
        uint c = 0, heads = 0;
        V v = BK_ID;
        BK_LEAN_FOLD_(c, heads, v, from_a, mine_a, prev);
        bk_tile_scan_or_skip(c, v, sc, sv, &ec_a, &ev_a, &tc, &tvv); // (its barriers: every read of tk, tv done)
        BK_LEAN_STAGE_(ec_a, ev_a, heads, from_a, mine_a, prev, 0u);
    }
    const uint tc_a = tc;

    // B: the second sub-tile through the same registers.
    const ulong base_b = base + sub_n;
    const uint count_b = count > sub_n ? count - sub_n : 0u;
    const ulong from_b = base_b + first;
    const uint mine_b = first < count_b ? min((uint)BK_ITEMS, count_b - first) : 0u;
    const V tv_a = tvv;
    // B's elements, fold and scan, its pairs behind A's (count_b: alike in the group): the heads
    // HEADS, exclusive pairs (EC, EV); the tile's pair (TC, TV).
#define BK_LEAN2_B_(HEADS, EC, EV, TC, TV)                                                        \
    BK_LEAN2_LOAD_GLOBAL_(base_b, count_b, from_b, mine_b);                                       \
    uint HEADS = 0;                                                                               \
    uint EC, TC;                                                                                  \
    V EV, TV;                                                                                     \
    {                                                                                             \
        uint c = 0;                                                                               \
        V v = BK_ID;                                                                              \
        BK_LEAN_FOLD_(c, HEADS, v, from_b, mine_b, prev);                                         \
        bk_tile_scan_or_skip(c, v, sc, sv, &(EC), &(EV), &(TC), &(TV));                           \
        if (count_b > 0) {                                                                        \
            bk_combine(tc_a, tv_a, &(EC), &(EV));                                                 \
            bk_combine(tc_a, tv_a, &(TC), &(TV));                                                 \
        } else {                                                                                  \
            (TC) = tc_a;                                                                          \
            (TV) = tv_a;                                                                          \
        }                                                                                         \
    }
    BK_LEAN2_B_(heads_b, ec_b, ev_b, tc_b, tv_b);
    tc = tc_b;
    tvv = tv_b;
    bk_tile_publish(slots, epoch, t, tc, tvv, false);
    BK_LEAN_PREREAD_();
    const bool fits = tc + 1u <= cap; // (alike in the group)
    if (fits) BK_LEAN_STAGE_(ec_b, ev_b, heads_b, from_b, mine_b, prev, 0u);

    uint pc;
    V pv;
#if BK_LEAN_QUICK // (its barrier: the staged results visible to the group)
    bk_look_back_warp_quick(slots, epoch, t, tc, tvv, keys, vals, n, false, sc, sv, lb_state, &lb_acc, &pc, &pv,
                            BK_LEAN_PREREAD, pre_flag, pre_c, pre_v);
#else
    bk_tile_look_back(slots, epoch, t, tc, tvv, keys, vals, n, false, sc, sv, lb_flag, lb_c, lb_v, lb_state, &lb_acc,
                      &pc, &pv, false); // (its last barrier: the staged results visible to the group)
#endif
    const bool last_tile = bk_tile_count(base, count, n, flags, count_out + count_off, pc + tc);
#if BK_DIAG & 2 // the stores behind a condition that never holds (flags has no such bit)
#define BK_LEAN2_STORE_OK (flags & 0x80000000u)
#else
#define BK_LEAN2_STORE_OK 1
#endif
    // Store: the staged places [0, m) (place s closes run pc + s - 1; tile 0 has none before its
    // first head; place 0 takes the tiles before in front), then, where B did not fit, B's places
    // [tc_a, tc + last) staged now from its elements read again.
    const uint m_all = tc + (last_tile ? 1u : 0u);
#define BK_LEAN2_STORE_(OFF, M)                                                                   \
    for (uint s = (OFF) + lid + (t == 0 && (OFF) == 0 ? 1u : 0u); s < (M); s += wg) {              \
        const ulong o = (ulong)pc + s - 1;                                                        \
        const V x = tv[s - (OFF)];                                                                \
        const V val = s == 0 ? BK_OP(pv, x) : x;                                                  \
        if (BK_LEAN2_STORE_OK && o < cap1) out1[o] = tk[s - (OFF)];                               \
        if (BK_LEAN2_STORE_OK && o < cap2) out2[o] = val;                                         \
    }
    BK_LEAN2_STORE_(0u, fits ? m_all : tc_a);
#ifdef BK_PTX // (alike in the group; elsewhere no barrier under a condition: PoCL)
    if (!fits)
#endif
    {
        // B again, from its elements read again (folded and scanned again: the same bits; nothing
        // of B held through the look-back). On PoCL every tile runs it (no barrier under a
        // condition there), staging and storing only where B did not fit.
#ifdef BK_PTX // (the buffers through an opaque move: else the compiler keeps the first load's
              // registers through the look-back instead of loading again)
        __global const K* keys_again;
        __global const V* vals_again;
        asm volatile("mov.b64 %0, %1;" : "=l"(keys_again) : "l"(keys));
        asm volatile("mov.b64 %0, %1;" : "=l"(vals_again) : "l"(vals));
        __global const K* keys = keys_again;
        __global const V* vals = vals_again;
#endif
        BK_LEAN2_B_(heads_r, ec_r, ev_r, tc_r, tv_r); // (its scan's first barrier: every read of A's places done)
        (void)tc_r;
        (void)tv_r;
        if (!fits) BK_LEAN_STAGE_(ec_r, ev_r, heads_r, from_b, mine_b, prev, tc_a);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (!fits) BK_LEAN2_STORE_(tc_a, m_all);
    }
}

#endif

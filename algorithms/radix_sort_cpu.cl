// LSD radix sort shaped for CPU devices (PoCL and the like), host side in radix_sort_cpu.cpp.
// Joined after sort_key_order.cl; needs K (key type macros), DIGIT_BITS, PASSES (digits of a key:
// ceil(K_BITS / DIGIT_BITS)), HAS_VALUES and V (uint or ulong: values are moved as bits) when
// values travel with the keys, WC_LINE (keys per write-combining line, 0 for none).
//
// The idea: a CPU has a few cores, each fastest on one long sequential run; barriers and local
// memory cost there what they save on a GPU. So every kernel runs work-groups of ONE work-item,
// and work-item c owns the contiguous chunk [c * chunk, (c + 1) * chunk) of the keys:
//  (1) radix_cpu_count: per pass, each work-item counts its chunk's digits (a private table per
//      chunk, no atomics). The first count of a call also takes the OR / AND of the sortable
//      keys, from which the host sees which digits vary: a pass over a digit that every key
//      shares is skipped. (Counting every pass's digits in that first read is not enough: after
//      a scatter each chunk holds other keys, and its slots depend on what it holds.)
//  (2) radix_cpu_offsets: the pass's (digit x chunk) table scanned digit-major: the first slot of
//      chunk c's keys with digit d is (keys with a smaller digit) + (keys with digit d in chunks
//      before c). One work-item; the table is small (chunks x 2^DIGIT_BITS).
//  (3) radix_cpu_scatter, once per pass: each work-item walks its chunk in order and writes every
//      key to the next slot of its digit. Walking in order keeps equal digits in input order, and
//      chunks are laid out in chunk order, so each pass is stable and LSD passes sort.
//      With WC_LINE, keys (and values) are first gathered per digit in a small buffer of one cache
//      line and written a line at a time (write combining): a CPU then streams into 2^DIGIT_BITS
//      output places a line at a time instead of touching a different line on every key.
// Keys are sorted as key_to_sortable bits: the first pass converts on load, the last converts
// back on store, in between the scratch buffers hold sortable bits.
#ifndef K_UNSIGNED
#error "radix_sort_cpu.cl needs K (the key type's macros)"
#endif
#ifndef DIGIT_BITS
#error "radix_sort_cpu.cl needs DIGIT_BITS"
#endif
#ifndef PASSES
#error "radix_sort_cpu.cl needs PASSES"
#endif
#ifndef WC_LINE
#error "radix_sort_cpu.cl needs WC_LINE (0: no write-combining lines)"
#endif
#if defined(HAS_VALUES) && !defined(V)
#error "radix_sort_cpu.cl needs V with HAS_VALUES"
#endif

#define SK K_UNSIGNED
#define RADIX (1u << DIGIT_BITS)
#define DIGIT_MASK (RADIX - 1u)
#define TABLE (PASSES * RADIX) // one chunk's counts: [pass][digit] (each pass its own row)

#ifndef V
#define V uint
#endif

inline SK caller_to_sortable(SK bits) { return key_to_sortable(K_AS_KEY(bits)); }
inline SK sortable_to_caller(SK s) { return K_AS_UNSIGNED(sortable_to_key(s)); }

// (1) counts[c][pass][d] = keys of chunk c whose digit `pass` is d, counted in the chunk as it
// is now (before this pass's scatter: a chunk holds other keys in every pass). With want_mask,
// masks[2c], masks[2c+1] = OR and AND of the chunk's sortable keys.
__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void radix_cpu_count(__global const SK* restrict keys, ulong off, ulong n, ulong chunk, uint pass, uint convert,
                     __global uint* restrict counts, __global SK* restrict masks, uint want_mask)
{
    const ulong c = get_global_id(0);
    const ulong b = min(n, c * chunk), e = min(n, b + chunk);
    __global uint* restrict h = counts + c * TABLE + pass * RADIX;
    const uint shift = pass * DIGIT_BITS;
    for (uint d = 0; d < RADIX; ++d) h[d] = 0;
    keys += off;
    if (want_mask) { // the first count of a call: the caller's keys
        SK any = 0, all = ~(SK)0;
        for (ulong i = b; i < e; ++i) {
            const SK s = caller_to_sortable(keys[i]);
            any |= s;
            all &= s;
            ++h[(uint)(s >> shift) & DIGIT_MASK];
        }
        masks[2 * c] = any;
        masks[2 * c + 1] = all;
    } else if (convert) {
        for (ulong i = b; i < e; ++i) ++h[(uint)(caller_to_sortable(keys[i]) >> shift) & DIGIT_MASK];
    } else {
        for (ulong i = b; i < e; ++i) ++h[(uint)(keys[i] >> shift) & DIGIT_MASK];
    }
}

// (2) In place, for one pass: counts become each (chunk, digit)'s first output slot. One
// work-item; n < 2^32 (the host checks), so uint sums cannot overflow.
__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void radix_cpu_offsets(__global uint* restrict counts, ulong chunks, uint pass)
{
    uint sum = 0;
    for (uint d = 0; d < RADIX; ++d) {
        for (ulong c = 0; c < chunks; ++c) {
            __global uint* x = counts + c * TABLE + pass * RADIX + d;
            const uint t = *x;
            *x = sum;
            sum += t;
        }
    }
}

// One chunk's scatter for one pass. CONVERT_IN / CONVERT_OUT are compile-time after inlining (the
// kernel calls it with constants), so the loop carries no per-key branch on them.
inline void scatter_chunk(__global const SK* restrict in, __global SK* restrict out,
                          __global const V* restrict vin, __global V* restrict vout, ulong b, ulong e,
                          uint shift, __global uint* restrict pos, const bool convert_in,
                          const bool convert_out, __local SK* restrict wk, __local V* restrict wv)
{
    (void)vin; (void)vout; (void)wk; (void)wv;
#if WC_LINE > 0
    // fill[d]: keys of digit d waiting in line d of the buffer; they go to pos[d] - fill[d]...
    // The line is written when full and whatever remains at the end. Chunk-aligned output is not
    // needed: a line flushes to consecutive slots of one digit, whatever their alignment.
    uchar fill[RADIX];
    for (uint d = 0; d < RADIX; ++d) fill[d] = 0;
    for (ulong i = b; i < e; ++i) {
        SK s = in[i];
        if (convert_in) s = caller_to_sortable(s);
        const uint d = (uint)(s >> shift) & DIGIT_MASK;
        const uint f = fill[d];
        wk[d * WC_LINE + f] = convert_out ? sortable_to_caller(s) : s;
#ifdef HAS_VALUES
        wv[d * WC_LINE + f] = vin[i];
#endif
        if (f + 1 == WC_LINE) {
            const uint o = pos[d];
            pos[d] = o + WC_LINE;
            for (uint j = 0; j < WC_LINE; ++j) out[o + j] = wk[d * WC_LINE + j];
#ifdef HAS_VALUES
            for (uint j = 0; j < WC_LINE; ++j) vout[o + j] = wv[d * WC_LINE + j];
#endif
            fill[d] = 0;
        } else {
            fill[d] = (uchar)(f + 1);
        }
    }
    for (uint d = 0; d < RADIX; ++d) {
        const uint o = pos[d];
        for (uint j = 0; j < fill[d]; ++j) {
            out[o + j] = wk[d * WC_LINE + j];
#ifdef HAS_VALUES
            vout[o + j] = wv[d * WC_LINE + j];
#endif
        }
    }
#else
    for (ulong i = b; i < e; ++i) {
        SK s = in[i];
        if (convert_in) s = caller_to_sortable(s);
        const uint d = (uint)(s >> shift) & DIGIT_MASK;
        const uint o = pos[d]++;
        out[o] = convert_out ? sortable_to_caller(s) : s;
#ifdef HAS_VALUES
        vout[o] = vin[i];
#endif
    }
#endif
}

// (3) One pass: keys (and values) of chunk get_global_id(0) to their slots; the output buffer
// pointers are already offset by the host's element offsets (passed separately, see below).
// wk / wv: one write-combining line per digit (RADIX * WC_LINE elements; unused without WC_LINE).
__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void radix_cpu_scatter(__global const SK* restrict in, ulong in_off, __global SK* restrict out, ulong out_off,
                       __global const V* restrict vin, ulong vin_off, __global V* restrict vout, ulong vout_off,
                       ulong n, ulong chunk, uint pass, uint convert_in, uint convert_out,
                       __global uint* restrict counts, __local SK* restrict wk, __local V* restrict wv)
{
    (void)vin_off; (void)vout_off;
    const ulong c = get_global_id(0);
    const ulong b = min(n, c * chunk), e = min(n, b + chunk);
    __global uint* restrict pos = counts + c * TABLE + pass * RADIX;
    const uint shift = pass * DIGIT_BITS;
    in += in_off;
    out += out_off;
#ifdef HAS_VALUES
    vin += vin_off;
    vout += vout_off;
#endif
    if (convert_in && convert_out) scatter_chunk(in, out, vin, vout, b, e, shift, pos, true, true, wk, wv);
    else if (convert_in) scatter_chunk(in, out, vin, vout, b, e, shift, pos, true, false, wk, wv);
    else if (convert_out) scatter_chunk(in, out, vin, vout, b, e, shift, pos, false, true, wk, wv);
    else scatter_chunk(in, out, vin, vout, b, e, shift, pos, false, false, wk, wv);
}

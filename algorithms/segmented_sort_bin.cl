// clprim::segmented_sort's binning (joined after segmented_sort.cl, whose macros and ss_class_of
// it uses): every segment's size class counted and listed on the device.
//
// segsort_scout (inputs longer than the tile) counts every class and lists the long segments in
// one launch; the host reads both (its one round trip; inputs no longer than the tile skip it).
// segsort_count counts per run of spt segments how many fall in each size class; clprim's
// exclusive scan of the class-major table gives every (class, run) its first slot in one list;
// segsort_ids writes the segment numbers there (and the begin/end pairs of class 0).
//
// Required macros: those of segmented_sort.cl (joined before this file).
#ifndef SS_MAX_CLASSES
#error "segmented_sort_bin.cl needs segmented_sort.cl joined before it"
#endif

// Counts per run of spt segments (work-item w) and class: table[class * items + w].
__kernel void segsort_count(__global const OFF* offsets, ulong ooff, ulong num_segments, ulong n, uint spt,
                            uint classes, uint min_log, uint step_log, ulong tile, __global uint* table, uint items)
{
    const uint w = get_global_id(0);
    if (w >= items) return;
    uint counts[SS_MAX_CLASSES] = {0};
    const ulong first = (ulong)w * spt;
    const ulong last = min(first + spt, num_segments);
    for (ulong s = first; s < last; ++s) {
        ulong b, e;
        const uint c = ss_class_of(offsets, ooff, s, n, classes, min_log, step_log, tile, &b, &e);
        if (c != SS_NONE) counts[c]++;
    }
    for (uint c = 0; c <= classes; ++c) table[c * items + w] = counts[c];
    if (w == 0) table[(classes + 1) * items] = 0;
}

// The scout (GPUs and CPUs, inputs longer than the tile): in one pass over the offsets, every
// class's count (out[c], zeroed before: per work-group in local memory, then one atomic per class)
// and the long segments' (begin, end) pairs after `head` ulongs, the first `cap` of them in
// arrival order (a global atomic each: there are at most n / (tile + 1)). The host reads both at
// once, sorts the long ones first and bins the others (segsort_count, scan, segsort_ids) only
// where a listed class has segments: an input of long and empty segments costs this one launch.
__kernel void segsort_scout(__global const OFF* offsets, ulong ooff, ulong num_segments, ulong n, uint spt,
                            uint classes, uint min_log, uint step_log, ulong tile, __global uint* out, uint head,
                            uint cap)
{
    __local uint counts[SS_MAX_CLASSES];
    const uint lid = get_local_id(0);
    for (uint c = lid; c <= classes; c += get_local_size(0)) counts[c] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    __global ulong* pairs = (__global ulong*)out + head;
    const ulong first = (ulong)get_global_id(0) * spt;
    const ulong last = min(first + spt, num_segments);
    for (ulong s = first; s < last; ++s) {
        ulong b, e;
        const uint c = ss_class_of(offsets, ooff, s, n, classes, min_log, step_log, tile, &b, &e);
        if (c == 0) {
            const uint slot = atomic_inc(out);
            if (slot < cap) {
                pairs[2 * slot] = b;
                pairs[2 * slot + 1] = e;
            }
        } else if (c != SS_NONE) {
            atomic_inc(&counts[c]);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint c = 1 + lid; c <= classes; c += get_local_size(0))
        if (counts[c] != 0) atomic_add(out + c, counts[c]);
}

// Writes segment numbers into the class lists (table scanned); class 0 also as (begin, end)
// pairs for the host, the first `cap` of them, after a head of `head` ulongs into which
// work-item 0 copies every class start (table[c * items], c = 0 .. classes + 1): the host reads
// the class starts and the first pairs in one contiguous read.
__kernel void segsort_ids(__global const OFF* offsets, ulong ooff, ulong num_segments, ulong n, uint spt,
                          uint classes, uint min_log, uint step_log, ulong tile, uint tiny,
                          __global const uint* table, uint items, __global uint* list, __global ulong* large, uint cap,
                          uint head)
{
    const uint w = get_global_id(0);
    if (w >= items) return;
    if (w == 0)
        for (uint c = 0; c <= classes + 1; ++c) ((__global uint*)large)[c] = table[c * items];
    large += head;
    uint next[SS_MAX_CLASSES] = {0};
    for (uint c = 0; c <= classes; ++c) next[c] = table[c * items + w];
    const ulong first = (ulong)w * spt;
    const ulong last = min(first + spt, num_segments);
    for (ulong s = first; s < last; ++s) {
        ulong b, e;
        const uint c = ss_class_of(offsets, ooff, s, n, classes, min_log, step_log, tile, &b, &e);
        if (c == SS_NONE || (tiny && c == 1)) continue; // tiny: class 1 counted, its list unwritten
        const uint slot = next[c]++;
        list[slot] = (uint)s;
        if (c == 0 && slot < cap) {
            large[2 * slot] = b;
            large[2 * slot + 1] = e;
        }
    }
}

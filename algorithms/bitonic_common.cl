// The bitonic sorting network's common part, joined after sort_key_order.cl and before
// bitonic_sort.cl (the global, local and transpose variants) or bitonic_fused.cl (the fused
// variant). Needs K, K_BITS, K_UNSIGNED (the key type's macros, type_options(key, "K")), V (the
// value type; uint when there are none) and SORT_HAS_VALUES when values travel with the keys.
#ifndef K
#error "bitonic_common.cl needs K"
#endif
#ifndef K_BITS
#error "bitonic_common.cl needs K_BITS"
#endif
#ifndef K_UNSIGNED
#error "bitonic_common.cl needs K_UNSIGNED"
#endif
#ifndef V
#error "bitonic_common.cl needs V"
#endif
//
// We use the "flip" form of the network: in stage k (block size k = 2, 4, ..., N) the first pass
// compares i with its mirror i ^ (k - 1), the later passes compare i with i ^ j (j = k/4 ... 1), and
// every comparator puts the smaller key at the lower index. Because no comparator ever sorts
// downwards, indices >= n behave as +inf that never move: comparators reaching past n are simply
// skipped (or padded with the largest sortable value, which strict comparisons never displace), so
// nothing outside [0, n) of the caller's range is read or written.
//
// Keys are compared through key_to_sortable (unsigned compare; floats by total order, descending by
// inverted bits), so the network is a correct sort for NaN and -0.0 too.

#define SK K_UNSIGNED
#define SK_MAX ((SK)~(SK)0) // keys of 8 to 64 bits

inline SK load_sortable(__global const K* keys, ulong i) { return key_to_sortable(keys[i]); }

// Compare-exchange of two registers: the smaller sortable key goes to a.
#ifdef SORT_HAS_VALUES
#define CMPX(ka, kb, va, vb)                                                                        \
    do {                                                                                            \
        if ((ka) > (kb)) {                                                                          \
            SK tk_ = (ka); (ka) = (kb); (kb) = tk_;                                                 \
            V tv_ = (va); (va) = (vb); (vb) = tv_;                                                  \
        }                                                                                           \
    } while (0)
#else
#define CMPX(ka, kb, va, vb)                                                                        \
    do {                                                                                            \
        if ((ka) > (kb)) { SK tk_ = (ka); (ka) = (kb); (kb) = tk_; }                                \
    } while (0)
#endif

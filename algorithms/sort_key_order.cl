// The one key order every clprim sort uses. key_to_ordered maps a key of type K to an unsigned
// integer (K_UNSIGNED) whose unsigned order is the key order: integers by value (signed ones with
// the sign bit flipped), floats by IEEE-754 total order (-NaN < -inf < ... < -0.0 < +0.0 < ...
// < +inf < +NaN: negative floats have all bits inverted, positive ones the sign bit set). With
// SORT_DESCENDING defined the ordered value is inverted as well, so a sort that follows
// key_to_sortable ascending yields the descending order and equal keys stay equal (stability).
// ordered_to_key undoes key_to_ordered. Needs K, K_BITS, K_IS_FLOAT, K_IS_SIGNED, K_UNSIGNED.

// Keys of 8, 16, 32 or 64 bits (8/16-bit keys: K_UNSIGNED is uchar / ushort; their sortable
// value is of that width too, so a radix sort takes one or two 8-bit digits).
#define K_SIGN_BIT ((K_UNSIGNED)((K_UNSIGNED)1 << (K_BITS - 1)))
#define K_AS_UNSIGNED CLPRIM_CAT(as_, K_UNSIGNED)
#define K_AS_KEY CLPRIM_CAT(as_, K)

inline K_UNSIGNED key_to_ordered(K k)
{
    K_UNSIGNED u = K_AS_UNSIGNED(k);
#if K_IS_FLOAT
    return (u & K_SIGN_BIT) ? ~u : (u | K_SIGN_BIT);
#elif K_IS_SIGNED
    return u ^ K_SIGN_BIT;
#else
    return u;
#endif
}

inline K ordered_to_key(K_UNSIGNED u)
{
#if K_IS_FLOAT
    u = (u & K_SIGN_BIT) ? (u ^ K_SIGN_BIT) : ~u;
#elif K_IS_SIGNED
    u ^= K_SIGN_BIT;
#endif
    return K_AS_KEY(u);
}

// The value a sort arranges in ascending unsigned order.
inline K_UNSIGNED key_to_sortable(K k)
{
#ifdef SORT_DESCENDING
    return ~key_to_ordered(k);
#else
    return key_to_ordered(k);
#endif
}

inline K sortable_to_key(K_UNSIGNED u)
{
#ifdef SORT_DESCENDING
    return ordered_to_key(~u);
#else
    return ordered_to_key(u);
#endif
}

// a comes strictly before b in the requested order.
inline bool key_before(K a, K b) { return key_to_sortable(a) < key_to_sortable(b); }

// The one-sweep radix sort's layouts that host and kernels share, written once: plain #defines
// that radix_onesweep.cpp includes (C++) and the program joins before radix_onesweep.cl (OpenCL C).
// Nothing here needs build macros.
#ifndef RADIX_ONESWEEP_LAYOUT_CL
#define RADIX_ONESWEEP_LAYOUT_CL

// Passes a status half is sized for (64-bit keys with 8-bit digits).
#define ONESWEEP_MAX_PASSES 8u

// info[] layout of a sort of `passes` passes over `radix` digits (uints): counts[passes][radix],
// starts[passes][radix], the histogram's done counter, one tile counter per pass, then one flag
// per pass (1 when every key has the same digit in that pass: the pass moves nothing).
#define ONESWEEP_INFO_COUNTS 0u
#define ONESWEEP_INFO_STARTS(passes, radix) ((passes) * (radix))
#define ONESWEEP_INFO_DONE(passes, radix) (2u * (passes) * (radix))
#define ONESWEEP_INFO_TILE_COUNTER(passes, radix, p) (ONESWEEP_INFO_DONE(passes, radix) + 1u + (p))
#define ONESWEEP_INFO_TRIVIAL(passes, radix, p) (ONESWEEP_INFO_DONE(passes, radix) + 1u + (passes) + (p))
#define ONESWEEP_INFO_WORDS(passes, radix) (ONESWEEP_INFO_DONE(passes, radix) + 1u + 2u * (passes))
// Then, for sorts in portions (radix_onesweep_pass.cl), two blocks of carried digit starts: the
// last tile of portion q writes the next portion's starts into block q % 2.
#define ONESWEEP_INFO_CARRY(passes, radix, c) (ONESWEEP_INFO_WORDS(passes, radix) + (c) * (radix))
#define ONESWEEP_INFO_ALL_WORDS(passes, radix) ONESWEEP_INFO_CARRY(passes, radix, 2u)
// One info half of the host's status buffer: room for ONESWEEP_MAX_PASSES, rounded up to 16 words.
#define ONESWEEP_INFO_STRIDE(radix) ((ONESWEEP_INFO_ALL_WORDS(ONESWEEP_MAX_PASSES, radix) + 15u) / 16u * 16u)

// Keys per work-item per round of onesweep_histogram (the kernel's HIST_KEYS).
#define ONESWEEP_HIST_KEYS 8u

// LB_TRACE records: ulongs per tile and pass.
#define ONESWEEP_TRACE_WORDS 10u

#endif

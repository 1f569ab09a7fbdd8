// The order-keeping reduction's local-memory tile layout, written once: plain #defines that
// reduce.cpp includes (C++) and the reduce programs join before reduce.cl (OpenCL C).
#ifndef REDUCE_LAYOUT_CL
#define REDUCE_LAYOUT_CL

// One pad slot every 32 elements: item-major reads (stride RED_ITEMS) fall into different banks.
#define RED_TILE_PAD(i) ((i) + ((i) >> 5))
// Slots a tile of `tile` elements takes (tile >= 1).
#define RED_TILE_SLOTS(tile) (RED_TILE_PAD((tile) - 1) + 1)

#endif

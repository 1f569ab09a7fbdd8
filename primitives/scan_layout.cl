// The device-wide scan's local-memory tile layout, written once: plain #defines that scan.cpp
// includes (C++) and the scan programs join before scan.cl (OpenCL C). No build macros needed.
#ifndef SCAN_LAYOUT_CL
#define SCAN_LAYOUT_CL

// Tile slots in local memory: one pad every 32 elements, so that the item-major accesses
// (stride SCAN_ITEMS) fall into different banks.
#define SCAN_TILE_PAD(i) ((i) + ((i) >> 5))
// Slots a tile of `tile` elements takes (tile >= 1).
#define SCAN_TILE_SLOTS(tile) (SCAN_TILE_PAD((tile) - 1) + 1)

#endif

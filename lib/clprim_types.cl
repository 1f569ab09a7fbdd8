// Joined in front of every clprim program. The host defines, for each type prefix P it uses
// (T, K, V, ...): P (the OpenCL C type), P_IS_FLOAT, P_IS_SIGNED, P_BITS, P_UNSIGNED (the unsigned
// integer type of the same width), P_MAXVAL and P_MINVAL (the largest and smallest values,
// +-INFINITY for floats: the identities of min and max), and CLPRIM_FP64 if a double is in use.
#ifdef CLPRIM_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

// clprim_device_fence(): orders this work-item's earlier global accesses, atomics included, before
// its later ones for every work-item of the device. The "last work-group finishes" patterns need
// it (counts or partials added, then a ticket taken). OpenCL 1.2's mem_fence promises only the
// work-item's own view, and NVIDIA's compiler makes it membar.cta: an atomic add whose result
// goes unused can still be in flight to L2 when another warp of the group takes the ticket, and
// the last group then reads a count without it (the one-sweep histogram lost digit counts this
// way under load: test/tools/stress_sort). NVIDIA builds (the host defines CLPRIM_PTX) use the
// device-scope membar.gl; elsewhere mem_fence, the strongest fence OpenCL C 1.2 has (PoCL's
// work-groups share the host's coherent memory).
#ifdef CLPRIM_PTX
#define clprim_device_fence() asm volatile("membar.gl;" ::: "memory")
#else
#define clprim_device_fence() mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif

#define CLPRIM_CAT_(a, b) a##b
#define CLPRIM_CAT(a, b) CLPRIM_CAT_(a, b)

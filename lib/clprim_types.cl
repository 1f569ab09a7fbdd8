// Joined in front of every clprim program. The host defines, for each type prefix P it uses
// (T, K, V, ...): P (the OpenCL C type), P_IS_FLOAT, P_IS_SIGNED, P_BITS, P_UNSIGNED (the unsigned
// integer type of the same width), P_MAXVAL and P_MINVAL (the largest and smallest values,
// +-INFINITY for floats: the identities of min and max), and CLPRIM_FP64 if a double is in use.
#ifdef CLPRIM_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#define CLPRIM_CAT_(a, b) a##b
#define CLPRIM_CAT(a, b) CLPRIM_CAT_(a, b)

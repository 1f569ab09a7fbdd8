#pragma once
#include <string>

namespace clprim {
namespace detail {

// The embedded OpenCL C sources, by file name (e.g. "workgroup_scan.cl"). Each layer's
// generated code registers its files; see cmake/ClprimEmbedKernels.cmake.
void register_kernel_source(const char* name, std::string text);

// The text registered under name; throws clprim::error if none was.
const std::string& kernel_source(const std::string& name);

bool has_kernel_source(const std::string& name);

// Registers the lib layer's own .cl files (types and helpers every program may join).
void register_lib_kernels();

} // namespace detail
} // namespace clprim

// clprim::workgroup_source(): the embedded building-block files, in the order the library joins
// them, plus workgroup_api.cl (the public names).
#include <clprim/detail/kernel_registry.hpp>
#include <clprim/detail/primitives_kernels.hpp>
#include <clprim/workgroup_source.hpp>

namespace clprim {

std::string workgroup_source()
{
    detail::register_primitives_kernels();
    std::string s = "// clprim work-group building blocks (clprim::workgroup_source()).\n";
    for (const char* file : {"workgroup_reduce.cl", "workgroup_scan.cl", "workgroup_histogram.cl", "workgroup_segmented.cl",
                             "workgroup_api.cl"})
        s += "\n// ---- " + std::string(file) + "\n" + detail::kernel_source(file) + "\n";
    return s;
}

} // namespace clprim

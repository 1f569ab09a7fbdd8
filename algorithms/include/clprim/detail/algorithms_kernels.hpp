#pragma once
#include <clprim/detail/primitives_kernels.hpp>

namespace clprim {
namespace detail {

// Generated from algorithms/*.cl (cmake/ClprimEmbedKernels.cmake).
void register_algorithms_kernels();

// get_program over sources from the algorithms' and the primitives' .cl files (the sorts reuse
// the work-group building blocks written once in primitives/).
inline bc::program algorithms_program(const bc::context& context, const std::vector<std::string>& sources,
                                      const std::string& options)
{
    register_primitives_kernels();
    register_algorithms_kernels();
    return get_program(context, sources, options);
}

} // namespace detail
} // namespace clprim

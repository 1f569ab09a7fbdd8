#pragma once
#include <clprim/detail/program_builder.hpp>

namespace clprim {
namespace detail {

// Generated from primitives/*.cl (cmake/ClprimEmbedKernels.cmake).
void register_primitives_kernels();

// get_program over sources that may include the primitives' .cl files.
inline bc::program primitives_program(const bc::context& context, const std::vector<std::string>& sources,
                                      const std::string& options)
{
    register_primitives_kernels();
    return get_program(context, sources, options);
}

} // namespace detail
} // namespace clprim

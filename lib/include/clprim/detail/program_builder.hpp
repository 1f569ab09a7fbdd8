#pragma once
#include <clprim/config.hpp>
#include <string>
#include <vector>

namespace clprim {
namespace detail {

// Joins registered kernel sources in order (each preceded by a #line marker naming its file),
// then returns the program for (context, sources, options): from Boost.Compute's program_cache
// if it was built before in this process, else from the on-disk binary cache, else built from
// source. Throws build_error with the compiler's log if the build fails.
bc::program get_program(const bc::context& context, const std::vector<std::string>& sources,
                        const std::string& options);

// The joined source text get_program would build (for tests and error messages).
std::string join_sources(const std::vector<std::string>& sources);

// The whole option string get_program builds with (the language level, options, the device's
// own defines such as CLPRIM_PTX, CLPRIM_BUILD_OPTIONS): part of every cache key.
std::string build_options(const bc::context& context, const std::string& options);

// Builds from source text directly (no disk cache); used by tests for build errors.
bc::program build_program_from_source(const bc::context& context, const std::string& source,
                                      const std::string& options);

} // namespace detail
} // namespace clprim

#pragma once
#include <clprim/config.hpp>
#include <stdexcept>
#include <string>

namespace clprim {

// Every failure clprim reports is an error or one of its subclasses.
struct error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Bad ranges, sizes, bin counts, buffers from another context.
struct invalid_argument_error : error {
    using error::error;
};

// A type or feature the device lacks (double without fp64).
struct unsupported_error : error {
    using error::error;
};

// An OpenCL program failed to build; log holds the compiler's build log.
struct build_error : error {
    build_error(const std::string& what, std::string build_log)
        : error(what), log(std::move(build_log)) {}
    std::string log;
};

} // namespace clprim

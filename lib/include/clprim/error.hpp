#pragma once
/// \file
/// \brief The exceptions clprim throws. Bad input throws before anything is enqueued and leaves
/// the caller's data as it was.
#include <clprim/config.hpp>
#include <stdexcept>
#include <string>

namespace clprim {

/// \addtogroup runtime
/// @{

/// \brief Every failure clprim reports is an error or one of its subclasses (OpenCL errors
/// inside a call are turned into one, naming the call).
struct error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// \brief Bad ranges, sizes, bin counts, buffers from another context, overlapping outputs.
struct invalid_argument_error : error {
    using error::error;
};

/// \brief A type or feature the device lacks (`double` without fp64).
struct unsupported_error : error {
    using error::error;
};

/// \brief An OpenCL program failed to build; log holds the compiler's build log.
struct build_error : error {
    /// \param what the message (which program, which device).
    /// \param build_log the OpenCL compiler's build log.
    build_error(const std::string& what, std::string build_log)
        : error(what), log(std::move(build_log)) {}
    /// The OpenCL compiler's build log.
    std::string log;
};

/// @}

} // namespace clprim

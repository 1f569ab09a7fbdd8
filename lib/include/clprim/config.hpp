#pragma once
// Included first by every clprim header: pins the OpenCL API level so builds are quiet.
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <boost/compute/core.hpp>

namespace clprim {
namespace bc = boost::compute;
}

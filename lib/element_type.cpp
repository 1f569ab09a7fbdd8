#include <clprim/detail/element_type.hpp>
#include <clprim/error.hpp>

namespace clprim {
namespace detail {

std::size_t size_of(element_type t)
{
    switch (t) {
    case element_type::int32: case element_type::uint32: case element_type::float32: return 4;
    default: return 8;
    }
}

bool is_float(element_type t) { return t == element_type::float32 || t == element_type::float64; }

bool is_signed(element_type t) { return t != element_type::uint32 && t != element_type::uint64; }

const char* cl_name(element_type t)
{
    switch (t) {
    case element_type::int32: return "int";
    case element_type::uint32: return "uint";
    case element_type::int64: return "long";
    case element_type::uint64: return "ulong";
    case element_type::float32: return "float";
    case element_type::float64: return "double";
    }
    return "?";
}

std::string type_options(element_type t, const std::string& p)
{
    const char* maxval = "";
    const char* minval = "";
    switch (t) {
    case element_type::int32: maxval = "INT_MAX"; minval = "INT_MIN"; break;
    case element_type::uint32: maxval = "UINT_MAX"; minval = "0u"; break;
    case element_type::int64: maxval = "LONG_MAX"; minval = "LONG_MIN"; break;
    case element_type::uint64: maxval = "ULONG_MAX"; minval = "0ul"; break;
    case element_type::float32: case element_type::float64: maxval = "INFINITY"; minval = "-INFINITY"; break;
    }
    const std::size_t bits = size_of(t) * 8;
    std::string o = " -D" + p + "=" + cl_name(t) + " -D" + p + "_IS_FLOAT=" + (is_float(t) ? "1" : "0") +
                    " -D" + p + "_IS_SIGNED=" + (is_signed(t) ? "1" : "0") + " -D" + p +
                    "_BITS=" + std::to_string(bits) + " -D" + p + "_UNSIGNED=" + (bits == 32 ? "uint" : "ulong") +
                    " -D" + p + "_MAXVAL=" + maxval + " -D" + p + "_MINVAL=" + minval;
    if (t == element_type::float64) o += " -DCLPRIM_FP64";
    return o;
}

void require_type_support(element_type t, const bc::device& device, const char* who)
{
    if (t == element_type::float64 && device.get_info<cl_device_fp_config>(CL_DEVICE_DOUBLE_FP_CONFIG) == 0 &&
        !device.supports_extension("cl_khr_fp64"))
        throw unsupported_error(std::string(who) + ": device '" + device.name() + "' has no double precision (cl_khr_fp64)");
}

} // namespace detail
} // namespace clprim

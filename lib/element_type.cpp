#include <clprim/detail/element_type.hpp>
#include <clprim/detail/queue_info.hpp>
#include <clprim/error.hpp>

// Everything here is derived from the rows of CLPRIM_ELEMENT_TYPES / CLPRIM_VALUE_ONLY_TYPES.

namespace clprim {
namespace detail {

void throw_not_an_element_type(element_type t)
{
    throw invalid_argument_error(std::string("clprim: ") + cl_name(t) + " values are moved, never computed with");
}

std::size_t size_of(element_type t)
{
    switch (t) {
#define CLPRIM_SIZE_(e, host, ...) \
    case element_type::e: return sizeof(host);
        CLPRIM_ELEMENT_TYPES(CLPRIM_SIZE_)
#undef CLPRIM_SIZE_
#define CLPRIM_SIZE_(e, bytes, name) \
    case element_type::e: return bytes;
        CLPRIM_VALUE_ONLY_TYPES(CLPRIM_SIZE_)
#undef CLPRIM_SIZE_
    }
    return 0;
}

bool is_float(element_type t)
{
    switch (t) {
#define CLPRIM_FLOAT_(e, host, name, flt, ...) \
    case element_type::e: return flt;
        CLPRIM_ELEMENT_TYPES(CLPRIM_FLOAT_)
#undef CLPRIM_FLOAT_
    default: return false;
    }
}

bool is_signed(element_type t)
{
    switch (t) {
#define CLPRIM_SIGNED_(e, host, name, flt, sgn, ...) \
    case element_type::e: return sgn;
        CLPRIM_ELEMENT_TYPES(CLPRIM_SIGNED_)
#undef CLPRIM_SIGNED_
    default: return false;
    }
}

bool is_value_only(element_type t)
{
    switch (t) {
#define CLPRIM_VALUE_ONLY_(e, ...) \
    case element_type::e: return true;
        CLPRIM_VALUE_ONLY_TYPES(CLPRIM_VALUE_ONLY_)
#undef CLPRIM_VALUE_ONLY_
    default: return false;
    }
}

const char* cl_name(element_type t)
{
    switch (t) {
#define CLPRIM_NAME_(e, host, name, ...) \
    case element_type::e: return name;
        CLPRIM_ELEMENT_TYPES(CLPRIM_NAME_)
#undef CLPRIM_NAME_
#define CLPRIM_NAME_(e, bytes, name) \
    case element_type::e: return name;
        CLPRIM_VALUE_ONLY_TYPES(CLPRIM_NAME_)
#undef CLPRIM_NAME_
    }
    return "?";
}

element_type bits_type(std::size_t bytes)
{
    switch (bytes) {
    case 1: return element_type::uint8;
    case 2: return element_type::uint16;
    case 4: return element_type::uint32;
    case 8: return element_type::uint64;
    case 16: return element_type::bits128;
    default: return element_type::bits256;
    }
}

const char* bits_name(element_type t) { return cl_name(bits_type(size_of(t))); }

std::string type_options(element_type t, const std::string& p)
{
    const char* maxval = "0";
    const char* minval = "0";
    switch (t) {
#define CLPRIM_LIMITS_(e, host, name, flt, sgn, maxv, minv) \
    case element_type::e: maxval = maxv; minval = minv; break;
        CLPRIM_ELEMENT_TYPES(CLPRIM_LIMITS_)
#undef CLPRIM_LIMITS_
    default: break;
    }
    const std::size_t bits = size_of(t) * 8;
    std::string o = " -D" + p + "=" + cl_name(t) + " -D" + p + "_IS_FLOAT=" + (is_float(t) ? "1" : "0") +
                    " -D" + p + "_IS_SIGNED=" + (is_signed(t) ? "1" : "0") + " -D" + p +
                    "_BITS=" + std::to_string(bits) + " -D" + p + "_UNSIGNED=" + bits_name(t) +
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

void require_type_support(element_type t, const bc::command_queue& queue, const char* who)
{
    if (t == element_type::float64) require_type_support(t, info_of(queue).device, who);
}

} // namespace detail
} // namespace clprim

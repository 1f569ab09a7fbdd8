#pragma once
// One place where the library's multi-kernel algorithms enqueue their kernels, so a developer can
// see where the time of a composed algorithm (a radix sort pass: count, scan, scatter) goes.
// When kernel_profile is switched on and the queue was created with CL_QUEUE_PROFILING_ENABLE,
// every launch's event is kept under its kernel's name; kernel_profile_report() sums them.
#include <clprim/config.hpp>

#include <algorithm>
#include <cstddef>
#include <string>
#include <type_traits>
#include <vector>

namespace clprim {
namespace detail {

// Enqueues kernel over global work-items in work-groups of local (global a multiple of local).
// Returns the launch's event while kernel_profile is on and the queue profiles, an empty event
// otherwise (no event is created then: it costs host time at every launch).
bc::event launch_1d(bc::command_queue& queue, const bc::kernel& kernel, std::size_t global, std::size_t local);

// Typed kernel arguments: a kernel's arguments are given in order, as one list, so that no index
// is written by hand (and none can be misnumbered):
//     set_kernel_args(k, in.buffer, cl_ulong(in.offset), cl_ulong(n), out.buffer, local_bytes{wg * 4});
//     launch(queue, k, global, local, in.buffer, cl_ulong(n));   // set, then launch_1d
// Buffers, OpenCL scalar and vector types, raw_value and local_bytes (a __local argument of that size) are
// accepted; plain int/size_t must be cast to the kernel's type (cl_uint, cl_ulong, ...).
struct local_bytes {
    std::size_t bytes;
};
// A value whose type is known only at run time (an element of the call's element_type): `size`
// bytes at `data`, e.g. raw_value{size_of(type), &init}.
struct raw_value {
    std::size_t size;
    const void* data;
};

namespace kernel_args_detail {
inline void set_one(bc::kernel& k, cl_uint i, const local_bytes& l) { k.set_arg(i, std::max<std::size_t>(l.bytes, 1), nullptr); }
inline void set_one(bc::kernel& k, cl_uint i, const raw_value& v) { k.set_arg(i, v.size, v.data); }
inline void set_one(bc::kernel& k, cl_uint i, const bc::buffer& b) { k.set_arg(i, b); }
template <class T>
void set_one(bc::kernel& k, cl_uint i, const T& v)
{
    static_assert(std::is_trivially_copyable<T>::value, "kernel arguments are buffers, local_bytes or OpenCL scalar/vector values");
    k.set_arg(i, sizeof(T), &v);
}
} // namespace kernel_args_detail

// Sets arguments first_index, first_index + 1, ... of k to args (first_index 0 unless a kernel
// keeps some arguments fixed between calls).
template <class... Args>
bc::kernel& set_kernel_args_from(bc::kernel& k, cl_uint first_index, const Args&... args)
{
    cl_uint i = first_index;
    (kernel_args_detail::set_one(k, i++, args), ...);
    return k;
}
template <class... Args>
bc::kernel& set_kernel_args(bc::kernel& k, const Args&... args)
{
    return set_kernel_args_from(k, 0, args...);
}
// Sets every argument of k and enqueues it (launch_1d).
template <class... Args>
bc::event launch(bc::command_queue& queue, bc::kernel& k, std::size_t global, std::size_t local, const Args&... args)
{
    set_kernel_args(k, args...);
    return launch_1d(queue, k, global, local);
}

struct kernel_time {
    std::string name;
    std::size_t launches = 0;
    double ms = 0; // summed device time (CL_PROFILING_COMMAND_START..END)
};

// Names the launches of this host thread in the profile while it lives: "<kernel>/<label>", so
// launches of one kernel in different roles (the bitonic sort's full and short rows launches) are timed apart.
class profile_label {
public:
    explicit profile_label(const char* label);
    ~profile_label();
    profile_label(const profile_label&) = delete;
    profile_label& operator=(const profile_label&) = delete;

private:
    const char* previous_;
};

// Off by default (and without cost then). Switching it on clears what was recorded.
void kernel_profile(bool on);
// Waits for the recorded events and returns the times per kernel name, in first-launch order;
// clears the record.
std::vector<kernel_time> kernel_profile_report();

} // namespace detail
} // namespace clprim

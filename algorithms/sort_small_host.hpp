#pragma once
// What the small radix paths (sort_small.cpp, sort_small_tiles.cpp) do per call on the host, kept
// to a few driver calls: at 1024 keys the H100's wall time per call is mostly host and driver
// (docs/RESULTS.md, "#27 (s3-small)"). Each Boost.Compute device or context
// temporary costs several OpenCL queries (get_device(): the queue's device, then whether it is a
// sub-device, in the constructor and again in the destructor), and every clSetKernelArg is one.
// Private to the algorithms layer.
#include <clprim/detail/device_limits.hpp>
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/kernel_launch.hpp>
#include <clprim/error.hpp>

#include <boost/compute/exception/opencl_error.hpp>
#include <boost/throw_exception.hpp>

#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace clprim {
namespace detail {

// The queue's device and context handles (from info_of: no query on this thread's last queues).
struct small_queue_ids {
    cl_device_id device = nullptr;
    cl_context context = nullptr;
};

// A device object per handle, kept per host thread (made once: no queries per call).
inline const bc::device& small_device(cl_device_id id)
{
    thread_local std::map<cl_device_id, bc::device> devices;
    auto it = devices.find(id);
    if (it == devices.end()) it = devices.emplace(id, bc::device(id)).first;
    return it->second;
}


// Throws clprim::unsupported_error where the device runs fewer than wg work-items per group of
// this kernel (it needs exactly wg: reqd_work_group_size). Once per kernel built.
inline void small_require_group(const bc::kernel& k, cl_device_id device, std::size_t wg, const char* what)
{
    const std::size_t most = limits_for(k, small_device(device)).max_work_group_size;
    if (most < wg)
        throw unsupported_error(std::string("clprim::radix_sort: the device runs ") + std::to_string(most) +
                                " work-items per group of " + what + ", it needs " + std::to_string(wg));
}

// A kernel's arguments as last set, so that a call passing the same ones (a loop sorting the
// same buffer) sets none again. Only for kernels kept per host thread with their memo.
class kernel_arg_memo {
public:
    template <class... Args>
    void set(bc::kernel& k, const Args&... args)
    {
        if (values_.size() < sizeof...(Args)) values_.resize(sizeof...(Args));
        cl_uint i = 0;
        (set_one(k, i++, args), ...);
    }

private:
    std::vector<std::vector<unsigned char>> values_;

    bool same(cl_uint i, const void* p, std::size_t n)
    {
        std::vector<unsigned char>& v = values_[i];
        if (v.size() == n && std::memcmp(v.data(), p, n) == 0) return true;
        v.assign(static_cast<const unsigned char*>(p), static_cast<const unsigned char*>(p) + n);
        return false;
    }
    void set_one(bc::kernel& k, cl_uint i, const bc::buffer& b)
    {
        const cl_mem m = b.get();
        if (!same(i, &m, sizeof m)) set_kernel_args_from(k, i, b);
    }
    template <class T>
    void set_one(bc::kernel& k, cl_uint i, const T& v)
    {
        static_assert(std::is_trivially_copyable<T>::value, "scalar kernel arguments");
        if (!same(i, &v, sizeof v)) set_kernel_args_from(k, i, v);
    }
};

} // namespace detail
} // namespace clprim

#include <clprim/detail/knobs.hpp>
#include <clprim/device.hpp>
#include <clprim/error.hpp>

#include <boost/compute/system.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace clprim {

namespace {

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

std::string trim(const std::string& s)
{
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return {};
    const auto e = s.find_last_not_of(" \t\r\n");
    return s.substr(b, e - b + 1);
}

std::vector<bc::device> all_devices()
{
    try {
        return bc::system::devices();
    } catch (const bc::opencl_error& e) {
        throw error(std::string("clprim: cannot list OpenCL devices: ") + e.error_string());
    }
}

} // namespace

std::vector<std::string> describe_devices()
{
    std::vector<std::string> out;
    const auto devices = all_devices();
    for (std::size_t i = 0; i < devices.size(); ++i)
        out.push_back(std::to_string(i) + ": " + trim(devices[i].name()) + " (" +
                      trim(devices[i].platform().name()) + ")");
    return out;
}

bc::device select_device(const std::string& selector_raw)
{
    const std::string selector = lower(trim(selector_raw));
    const auto devices = all_devices();
    auto fail = [&](const std::string& why) -> bc::device {
        std::string msg = "clprim: " + why + "; devices available:";
        const auto list = describe_devices();
        if (list.empty()) msg += " none (is an OpenCL driver (ICD) installed?)";
        for (const auto& d : list) msg += "\n  " + d;
        throw error(msg);
    };
    if (devices.empty()) return fail("no OpenCL device found");

    if (selector == "gpu" || selector == "cpu" || selector == "accelerator") {
        const cl_device_type want = selector == "gpu" ? CL_DEVICE_TYPE_GPU
                                  : selector == "cpu" ? CL_DEVICE_TYPE_CPU
                                                      : CL_DEVICE_TYPE_ACCELERATOR;
        for (const auto& d : devices)
            if (d.type() & want) return d;
        return fail("no " + selector + " device (CLPRIM_DEVICE=" + selector_raw + ")");
    }
    if (!selector.empty() && std::all_of(selector.begin(), selector.end(), [](unsigned char c) { return std::isdigit(c); })) {
        const unsigned long idx = std::strtoul(selector.c_str(), nullptr, 10);
        if (selector.size() < 10 && idx < devices.size()) return devices[idx];
        return fail("device index " + selector + " is out of range");
    }
    if (!selector.empty()) {
        for (const auto& d : devices)
            if (lower(d.name()).find(selector) != std::string::npos) return d;
        for (const auto& d : devices)
            if (lower(d.platform().name()).find(selector) != std::string::npos) return d;
    }
    return fail("no device matches '" + selector_raw + "'");
}

bc::device default_device()
{
    if (const auto selector = detail::knob_text("CLPRIM_DEVICE")) return select_device(*selector);
    try {
        return bc::system::default_device();
    } catch (const std::exception& e) {
        return select_device(""); // reports the devices there are (or that there are none)
    }
}

} // namespace clprim

#pragma once
#include <clprim/config.hpp>
#include <string>
#include <vector>

namespace clprim {

// The device clprim's tools and tests use: CLPRIM_DEVICE if set, else
// bc::system::default_device(). CLPRIM_DEVICE accepts "gpu", "cpu", a decimal index into the
// list of all devices of all platforms, or a case-insensitive substring of the device or
// platform name. A value matching no device throws clprim::error listing the devices there are.
bc::device default_device();

// The same choice from an explicit selector string (what CLPRIM_DEVICE holds).
bc::device select_device(const std::string& selector);

// "index: device name (platform name)" for every device of every platform.
std::vector<std::string> describe_devices();

} // namespace clprim

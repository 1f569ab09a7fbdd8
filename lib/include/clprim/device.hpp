#pragma once
/// \file
/// \brief Choosing the OpenCL device: `CLPRIM_DEVICE` and the selector strings it takes.
#include <clprim/config.hpp>
#include <string>
#include <vector>

namespace clprim {

/// \addtogroup runtime
/// @{

/// \brief The device clprim's tools and tests use: `CLPRIM_DEVICE` if set, else
/// `bc::system::default_device()`.
///
/// `CLPRIM_DEVICE` accepts `gpu`, `cpu`, a decimal index into the list of all devices of all
/// platforms, or a case-insensitive substring of the device or platform name.
/// \return the chosen device.
/// \throws clprim::error when `CLPRIM_DEVICE` matches no device; the message lists the devices
/// there are.
bc::device default_device();

/// \brief The same choice from an explicit selector string (what `CLPRIM_DEVICE` holds).
/// \param selector `gpu`, `cpu`, a decimal index or a part of a device or platform name.
/// \return the chosen device.
/// \throws clprim::error when the selector matches no device.
bc::device select_device(const std::string& selector);

/// \brief One line `"index: device name (platform name)"` for every device of every platform,
/// in the order the indexes of select_device() count.
std::vector<std::string> describe_devices();

/// @}

} // namespace clprim

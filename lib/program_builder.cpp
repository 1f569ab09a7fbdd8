#include <clprim/detail/binary_cache.hpp>
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/kernel_registry.hpp>
#include <clprim/detail/knobs.hpp>
#include <clprim/detail/program_builder.hpp>
#include <clprim/error.hpp>

#include <boost/compute/utility/program_cache.hpp>

#include <algorithm>
#include <cstdlib>
#include <mutex>

namespace clprim {
namespace detail {

std::string join_sources(const std::vector<std::string>& sources)
{
    std::string joined;
    // Every program starts with the type helpers, then the requested files in order.
    std::vector<std::string> all{"clprim_types.cl"};
    for (const auto& s : sources)
        if (s != "clprim_types.cl") all.push_back(s);
    for (const auto& name : all) {
        joined += "#line 1 \"" + name + "\"\n";
        joined += kernel_source(name);
        joined += "\n";
    }
    return joined;
}

namespace {

std::string describe(const bc::context& context)
{
    const auto devices = context.get_devices();
    return devices.empty() ? std::string("?") : devices[0].name();
}

bc::program build_or_throw(bc::program program, const std::string& options, const std::string& what,
                           const bc::context& context)
{
    try {
        program.build(options);
    } catch (const bc::opencl_error& e) {
        std::string log;
        try {
            log = program.build_log();
        } catch (...) {
        }
        throw build_error("clprim: building " + what + " for " + describe(context) + " failed (" +
                              e.error_string() + "); options:" + options + "\n" + log,
                          log);
    }
    return program;
}

} // namespace

bc::program build_program_from_source(const bc::context& context, const std::string& source,
                                      const std::string& options)
{
    bc::program program;
    try {
        program = bc::program::create_with_source(source, context);
    } catch (const bc::opencl_error& e) {
        throw error(std::string("clprim: creating a program failed: ") + e.error_string());
    }
    return build_or_throw(program, options, "a program", context);
}

std::string build_options(const bc::context& context, const std::string& options_in)
{
    std::string options = "-cl-std=CL1.2" + options_in;
    // NVIDIA's compiler takes inline PTX: clprim_types.cl's device-scope fence uses it.
    const auto devices = context.get_devices();
    if (!devices.empty() &&
        std::all_of(devices.begin(), devices.end(), [](const bc::device& d) { return profile_of(d).nvidia; }))
        options += " -DCLPRIM_PTX";
    options += knob_options("CLPRIM_BUILD_OPTIONS");
    return options;
}

bc::program get_program(const bc::context& context, const std::vector<std::string>& sources,
                        const std::string& options_in)
{
    // -cl-std pins the language level: Boost.Compute and our kernels are OpenCL C 1.2.
    // CLPRIM_BUILD_OPTIONS adds options to every program (e.g. -cl-opt-disable where compile
    // time matters more than kernel speed); they are part of every cache key.
    const std::string options = build_options(context, options_in);
    std::string key;
    for (const auto& s : sources) key += s + ";";

    // Boost.Compute's global program cache has no lock of its own: calls from several host
    // threads look programs up (and build them, once) one at a time.
    static std::mutex mutex;
    std::lock_guard<std::mutex> lock(mutex);
    auto cache = bc::program_cache::get_global_cache(context);
    if (auto cached = cache->get(key, options)) return *cached;

    const std::string source = join_sources(sources);
    const auto devices = context.get_devices();
    // The disk cache stores one binary: only used for single-device contexts.
    const bool use_disk = devices.size() == 1 && binary_cache::enabled_for(devices[0]);

    if (use_disk) {
        if (auto binary = binary_cache::load(devices[0], source, options)) {
            try {
                bc::program p = bc::program::create_with_binary(*binary, context);
                p.build(options);
                cache->insert(key, options, p);
                return p;
            } catch (...) {
                // A stale or corrupt binary the driver rejects: build from source instead.
            }
        }
    }

    bc::program program;
    try {
        program = bc::program::create_with_source(source, context);
    } catch (const bc::opencl_error& e) {
        throw error("clprim: creating program " + key + " failed: " + e.error_string());
    }
    program = build_or_throw(program, options, "program " + key, context);

    if (use_disk) {
        try {
            binary_cache::store(devices[0], source, options, program.binary());
        } catch (...) {
            // Caching is an optimisation; never fail a call because of it.
        }
    }
    cache->insert(key, options, program);
    return program;
}

} // namespace detail
} // namespace clprim

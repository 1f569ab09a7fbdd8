#include <clprim/detail/kernel_registry.hpp>
#include <clprim/error.hpp>

#include <map>
#include <mutex>

namespace clprim {
namespace detail {

namespace {
struct registry {
    std::mutex mutex;
    std::map<std::string, std::string> sources;
};
registry& the_registry()
{
    static registry r;
    return r;
}
} // namespace

void register_kernel_source(const char* name, std::string text)
{
    auto& r = the_registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.sources[name] = std::move(text);
}

bool has_kernel_source(const std::string& name)
{
    register_lib_kernels();
    auto& r = the_registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    return r.sources.count(name) != 0;
}

const std::string& kernel_source(const std::string& name)
{
    register_lib_kernels();
    auto& r = the_registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    const auto it = r.sources.find(name);
    if (it == r.sources.end()) throw error("clprim: no embedded kernel source named '" + name + "'");
    return it->second; // std::map nodes are stable
}

} // namespace detail
} // namespace clprim

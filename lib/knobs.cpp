// The one parser of CLPRIM_* variables (see clprim/detail/knobs.hpp).
#include <clprim/detail/knobs.hpp>
#include <clprim/error.hpp>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string_view>
#include <map>
#include <mutex>

#if !defined(_WIN32)
#include <unistd.h> // environ
#endif

namespace clprim {
namespace detail {

namespace {

struct overrides {
    std::mutex mutex;
    std::map<std::string, std::string, std::less<>> values;
    // How many scoped_knob objects live: while none does, a knob is read without the lock and the
    // map (every call of every primitive reads several knobs; the lock, the name's std::string and
    // the search cost about as much as the getenv itself).
    std::atomic<std::size_t> live{0};
};

overrides& all_overrides()
{
    static overrides* o = new overrides; // never destroyed
    return *o;
}

[[noreturn]] void malformed(const char* name, const std::string& value, const std::string& expected)
{
    throw invalid_argument_error(std::string(name) + "=\"" + value + "\" is not valid: expected " + expected);
}

std::optional<std::size_t> parse_number(const std::string& s)
{
    if (s.empty() || s.size() > 19) return std::nullopt;
    std::size_t v = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return std::nullopt;
        v = v * 10 + std::size_t(c - '0');
    }
    return v;
}

std::string range_text(std::size_t min, std::size_t max)
{
    return "a whole number from " + std::to_string(min) + (max == std::size_t(-1) ? " up" : " to " + std::to_string(max));
}

} // namespace

std::optional<std::string> knob_text(const char* name)
{
    if (overrides& o = all_overrides(); o.live.load(std::memory_order_acquire) != 0) {
        std::lock_guard<std::mutex> lock(o.mutex);
        auto it = o.values.find(std::string_view(name));
        if (it != o.values.end()) {
            if (it->second.empty()) return std::nullopt;
            return it->second;
        }
    }
    const char* v = std::getenv(name);
    if (!v || !*v) return std::nullopt;
    return std::string(v);
}

std::optional<std::size_t> knob_choice(const char* name, std::initializer_list<const char*> choices)
{
    const auto v = knob_text(name);
    if (!v) return std::nullopt;
    std::size_t i = 0;
    std::string list;
    for (const char* c : choices) {
        if (*v == c) return i;
        list += (i ? "|" : "") + std::string(c);
        ++i;
    }
    malformed(name, *v, "one of " + list);
}

std::optional<std::size_t> knob_number(const char* name, std::size_t min, std::size_t max)
{
    const auto v = knob_text(name);
    if (!v) return std::nullopt;
    const auto n = parse_number(*v);
    if (!n || *n < min || *n > max) malformed(name, *v, range_text(min, max));
    return n;
}

std::optional<std::vector<std::size_t>> knob_numbers(const char* name, std::size_t min_count, std::size_t max_count,
                                                     std::size_t min, std::size_t max)
{
    const auto v = knob_text(name);
    if (!v) return std::nullopt;
    std::vector<std::size_t> out;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = v->find(',', start);
        const auto n = parse_number(v->substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (!n || *n < min || *n > max) break;
        out.push_back(*n);
        if (comma == std::string::npos) {
            if (out.size() >= min_count && out.size() <= max_count) return out;
            break;
        }
        start = comma + 1;
    }
    malformed(name, *v,
              std::to_string(min_count) + (max_count != min_count ? " to " + std::to_string(max_count) : std::string()) +
                  " comma-separated values, each " + range_text(min, max));
}

std::string knob_options(const char* name)
{
    const auto v = knob_text(name);
    return v ? " " + *v : std::string();
}

bool knobs_with_prefix(const char* prefix)
{
    if (all_overrides().live.load(std::memory_order_acquire) != 0) return true;
#if defined(_WIN32) || defined(__APPLE__)
    (void)prefix;
    return true; // (no environ scan there: every knob is read)
#else
    const std::size_t len = std::strlen(prefix);
    if (len == 0) return true;
    for (char** e = environ; e && *e; ++e)
        if ((*e)[0] == prefix[0] && std::strncmp(*e, prefix, len) == 0) return true;
    return false;
#endif
}

scoped_knob::scoped_knob(const char* name, std::string value) : name_(name)
{
    overrides& o = all_overrides();
    std::lock_guard<std::mutex> lock(o.mutex);
    auto it = o.values.find(name_);
    if (it != o.values.end()) previous_ = it->second;
    o.values[name_] = std::move(value);
    o.live.fetch_add(1, std::memory_order_release);
}

scoped_knob::~scoped_knob()
{
    overrides& o = all_overrides();
    std::lock_guard<std::mutex> lock(o.mutex);
    if (previous_) o.values[name_] = *previous_;
    else o.values.erase(name_);
    o.live.fetch_sub(1, std::memory_order_release);
}

} // namespace detail
} // namespace clprim

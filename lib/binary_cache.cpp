#include <clprim/detail/binary_cache.hpp>
#include <clprim/detail/knobs.hpp>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace clprim {
namespace detail {

namespace {

// FNV-1a, 64 bit: enough to name entries and to catch corrupted or truncated files.
std::uint64_t fnv1a(const void* data, std::size_t n, std::uint64_t h = 1469598103934665603ull)
{
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}
std::uint64_t fnv1a(const std::string& s, std::uint64_t h) { return fnv1a(s.data(), s.size(), h); }

const char magic[8] = {'C', 'L', 'P', 'R', 'I', 'M', 'B', '1'};

struct header {
    char magic[8];
    std::uint64_t key_check; // a second hash of the key, so a file-name collision is a miss
    std::uint64_t size;
    std::uint64_t checksum;
};

std::string key_material(const bc::device& device, const std::string& source, const std::string& options)
{
    std::string k;
    k += device.platform().name() + '\n' + device.platform().version() + '\n' + device.name() + '\n' +
         device.vendor() + '\n' + device.version() + '\n' + device.driver_version() + '\n';
    k += options + '\n';
    k += source;
    return k;
}

std::string hex(std::uint64_t v)
{
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

bool make_dirs(const std::string& path)
{
    std::string cur;
    std::stringstream ss(path);
    std::string part;
    if (!path.empty() && path[0] == '/') cur = "/";
    while (std::getline(ss, part, '/')) {
        if (part.empty()) continue;
        cur += part + "/";
        if (::mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST) return false;
    }
    return true;
}

std::atomic<unsigned long> n_hits{0}, n_misses{0}, n_rejected{0}, n_stores{0};

} // namespace

namespace {
enum class cache_setting { automatic, on, off };
cache_setting setting()
{
    const auto v = knob_choice("CLPRIM_CACHE", {"off", "OFF", "0", "false", "no", "on", "ON", "1", "true", "yes"});
    if (!v) return cache_setting::automatic;
    return *v < 5 ? cache_setting::off : cache_setting::on;
}
} // namespace

bool binary_cache::enabled() { return setting() != cache_setting::off; }

bool binary_cache::enabled_for(const bc::device& d)
{
    switch (setting()) {
    case cache_setting::off: return false;
    case cache_setting::on: return true;
    case cache_setting::automatic: break;
    }
    return d.platform().name().find("Portable Computing Language") == std::string::npos;
}

std::string binary_cache::directory()
{
    if (const auto d = knob_text("CLPRIM_CACHE_DIR")) return *d;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/clprim";
    if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/clprim";
    return "/tmp/clprim-cache";
}

std::string binary_cache::entry_path(const bc::device& device, const std::string& source,
                                     const std::string& options)
{
    return directory() + "/" + hex(fnv1a(key_material(device, source, options), 1469598103934665603ull)) + ".bin";
}

std::optional<std::vector<unsigned char>> binary_cache::load(const bc::device& device,
                                                             const std::string& source,
                                                             const std::string& options)
{
    if (!enabled_for(device)) return std::nullopt;
    const std::string key = key_material(device, source, options);
    std::ifstream in(entry_path(device, source, options), std::ios::binary);
    if (!in) {
        ++n_misses;
        return std::nullopt;
    }
    header h{};
    std::vector<unsigned char> bin;
    bool ok = bool(in.read(reinterpret_cast<char*>(&h), sizeof h)) &&
              std::memcmp(h.magic, magic, sizeof magic) == 0 &&
              h.key_check == fnv1a(key, 0x9e3779b97f4a7c15ull) && h.size > 0 && h.size < (1ull << 31);
    if (ok) {
        bin.resize(h.size);
        ok = bool(in.read(reinterpret_cast<char*>(bin.data()), std::streamsize(h.size))) &&
             in.peek() == std::char_traits<char>::eof() && fnv1a(bin.data(), bin.size()) == h.checksum;
    }
    if (!ok) {
        ++n_rejected;
        return std::nullopt;
    }
    ++n_hits;
    return bin;
}

void binary_cache::store(const bc::device& device, const std::string& source, const std::string& options,
                         const std::vector<unsigned char>& binary)
{
    if (!enabled_for(device) || binary.empty()) return;
    const std::string dir = directory();
    if (!make_dirs(dir)) return;
    const std::string path = entry_path(device, source, options);
    // Write to a private temporary name, then rename: readers never see a half-written entry.
    const std::string tmp = path + ".tmp." + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) return;
        header h{};
        std::memcpy(h.magic, magic, sizeof magic);
        h.key_check = fnv1a(key_material(device, source, options), 0x9e3779b97f4a7c15ull);
        h.size = binary.size();
        h.checksum = fnv1a(binary.data(), binary.size());
        out.write(reinterpret_cast<const char*>(&h), sizeof h);
        out.write(reinterpret_cast<const char*>(binary.data()), std::streamsize(binary.size()));
        if (!out) {
            out.close();
            std::remove(tmp.c_str());
            return;
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) std::remove(tmp.c_str());
    else ++n_stores;
}

binary_cache::statistics binary_cache::stats()
{
    return {n_hits.load(), n_misses.load(), n_rejected.load(), n_stores.load()};
}

void binary_cache::reset_stats()
{
    n_hits = n_misses = n_rejected = n_stores = 0;
}

} // namespace detail
} // namespace clprim

#pragma once
#include <clprim/config.hpp>
#include <optional>
#include <string>
#include <vector>

namespace clprim {
namespace detail {

// On-disk cache of compiled program binaries, kept between runs. Directory: CLPRIM_CACHE_DIR,
// else $XDG_CACHE_HOME/clprim, else ~/.cache/clprim. Entries are keyed by platform, device,
// driver version, source and options, and carry a checksum: a missing, stale or corrupt entry
// reads as a miss.
// CLPRIM_CACHE=off disables it, CLPRIM_CACHE=on uses it on every device; unset, it is used on
// every device but PoCL's. PoCL keeps its own on-disk kernel cache, and asking it for a program's
// binary makes it compile every kernel of the program for any work-group size first: on the
// 2-core CI machine one scan test case took 12.4 s with this cache and 4.7 s without.
class binary_cache {
public:
    static bool enabled();                        // not switched off (CLPRIM_CACHE)
    static bool enabled_for(const bc::device& d); // used for programs of this device
    static std::string directory();

    // The file an entry for this key lives in.
    static std::string entry_path(const bc::device& device, const std::string& source,
                                  const std::string& options);

    static std::optional<std::vector<unsigned char>> load(const bc::device& device,
                                                          const std::string& source,
                                                          const std::string& options);
    // Best effort: a cache that cannot be written is silently skipped.
    static void store(const bc::device& device, const std::string& source,
                      const std::string& options, const std::vector<unsigned char>& binary);

    // Counters for tests and the first-call measurements.
    struct statistics {
        unsigned long hits = 0, misses = 0, rejected = 0, stores = 0;
    };
    static statistics stats();
    static void reset_stats();
};

} // namespace detail
} // namespace clprim

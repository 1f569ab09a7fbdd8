#pragma once
// The one cache of built kernel sets. A kernel object carries the arguments last set on it, so two
// host threads must never share one: each thread keeps its own sets, keyed by what the program
// was built from (context, device, types, tile shape, build options: whatever the caller's Key
// holds). make() builds the set on a miss; a throw leaves nothing cached.
#include <map>
#include <utility>

namespace clprim {
namespace detail {

template <class Set, class Key, class Make>
Set& per_thread_kernels(const Key& key, Make&& make)
{
    thread_local std::map<Key, Set> cache; // one map per (Set, Key) type: Set types are per algorithm
    auto it = cache.find(key);
    if (it == cache.end()) it = cache.emplace(key, std::forward<Make>(make)()).first;
    return it->second;
}

} // namespace detail
} // namespace clprim

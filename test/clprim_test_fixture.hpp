#pragma once
// Shared by every clprim suite: the device under test (clprim::default_device(), so CLPRIM_DEVICE
// picks it), host data generators over the standard sizes and distributions, and host references.
#include <clprim/clprim.hpp>
#include <clprim/detail/device_profile.hpp>
#include <clprim/detail/knobs.hpp>

#include <boost/mpl/list.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace clprim_test {

namespace bc = boost::compute;

// One context and queue for the whole suite.
struct device_under_test {
    bc::device device;
    bc::context context;
    bc::command_queue queue;

    static device_under_test& get()
    {
        static device_under_test d;
        return d;
    }
    // What the library knows of the device (kind, vendor, limits): tests ask it, as the library
    // does, instead of reading device types or platform names themselves.
    const clprim::detail::device_profile& profile() const { return clprim::detail::profile_of(device); }
    bool is_gpu() const { return profile().is_gpu(); }
    bool is_cpu() const { return profile().is_cpu(); }
    bool nvidia() const { return profile().nvidia; }
    bool pocl() const { return profile().pocl; }
    bool has_fp64() const { return profile().fp64; }

private:
    device_under_test()
        : device(clprim::default_device()), context(device), queue(context, device)
    {
        std::cout << "clprim tests on: " << device.name() << " (" << device.platform().name() << ", "
                  << device.driver_version() << ")" << std::endl;
    }
};

// Fixture for BOOST_FIXTURE_TEST_SUITE: short names for the device under test.
struct fixture {
    bc::device& device = device_under_test::get().device;
    bc::context& context = device_under_test::get().context;
    bc::command_queue& queue = device_under_test::get().queue;

    bool on_gpu() const { return device_under_test::get().is_gpu(); }
    bool on_cpu() const { return device_under_test::get().is_cpu(); }
    bool on_nvidia() const { return device_under_test::get().nvidia(); }
};

using all_types = boost::mpl::list<cl_int, cl_uint, cl_long, cl_ulong, cl_float, cl_double>;
using integer_types = boost::mpl::list<cl_int, cl_uint, cl_long, cl_ulong>;

// True if T can run here; double on a device without fp64 is skipped (with a message).
template <class T>
bool type_runs_here()
{
    if constexpr (std::is_same_v<T, cl_double>) {
        if (!device_under_test::get().has_fp64()) {
            BOOST_TEST_MESSAGE("device has no fp64: double cases skipped");
            return false;
        }
    }
    return true;
}

template <class T>
std::string type_label()
{
    return bc::type_name<T>();
}

// Sizes every suite covers: empty, tiny, around warp and work-group multiples, primes, large.
inline std::vector<std::size_t> standard_sizes(bool include_large = true)
{
    std::vector<std::size_t> s{0, 1, 2, 3, 31, 32, 33, 255, 256, 257, 1000, 4095, 4096, 4097, 65537};
    if (include_large) s.push_back((std::size_t(1) << 20) + 3);
    return s;
}

enum class distribution { random, sorted, reversed, all_equal, few_distinct, extremes, float_specials };

inline const char* name_of(distribution d)
{
    switch (d) {
    case distribution::random: return "random";
    case distribution::sorted: return "sorted";
    case distribution::reversed: return "reversed";
    case distribution::all_equal: return "all_equal";
    case distribution::few_distinct: return "few_distinct";
    case distribution::extremes: return "extremes";
    case distribution::float_specials: return "float_specials";
    }
    return "?";
}

inline std::vector<distribution> all_distributions()
{
    return {distribution::random,       distribution::sorted,   distribution::reversed,
            distribution::all_equal,    distribution::few_distinct, distribution::extremes,
            distribution::float_specials};
}

// Random values over the type's whole range (integers) or a wide signed range (floats).
template <class T>
T random_value(std::mt19937_64& rng)
{
    if constexpr (std::is_integral_v<T>) {
        return static_cast<T>(rng());
    } else {
        std::uniform_real_distribution<double> u(-1.0e6, 1.0e6);
        return static_cast<T>(u(rng));
    }
}

// Host data of n elements in distribution d. float_specials mixes ±0, ±inf, NaN (both signs),
// denormals and ordinary values for float types; for integers it is the same as extremes.
template <class T>
std::vector<T> make_data(std::size_t n, distribution d, std::uint64_t seed = 12345)
{
    std::mt19937_64 rng(seed ^ (n * 0x9e3779b97f4a7c15ull) ^ (std::uint64_t(d) << 56));
    std::vector<T> v(n);
    using lim = std::numeric_limits<T>;
    switch (d) {
    case distribution::random:
        for (auto& x : v) x = random_value<T>(rng);
        break;
    case distribution::sorted:
        for (auto& x : v) x = random_value<T>(rng);
        std::sort(v.begin(), v.end());
        break;
    case distribution::reversed:
        for (auto& x : v) x = random_value<T>(rng);
        std::sort(v.begin(), v.end(), [](T a, T b) { return b < a; });
        break;
    case distribution::all_equal: {
        const T c = random_value<T>(rng);
        for (auto& x : v) x = c;
        break;
    }
    case distribution::few_distinct: {
        T pool[5];
        for (auto& p : pool) p = random_value<T>(rng);
        for (auto& x : v) x = pool[rng() % 5];
        break;
    }
    case distribution::float_specials:
        if constexpr (std::is_floating_point_v<T>) {
            const T specials[] = {T(0.0), T(-0.0), lim::infinity(), -lim::infinity(), lim::quiet_NaN(),
                                  -lim::quiet_NaN(), lim::denorm_min(), -lim::denorm_min(), lim::min(),
                                  lim::max(), lim::lowest(), T(1), T(-1)};
            for (auto& x : v)
                x = (rng() % 3 == 0) ? random_value<T>(rng) : specials[rng() % (sizeof specials / sizeof(T))];
            break;
        }
        [[fallthrough]];
    case distribution::extremes: {
        const T ex[] = {lim::lowest(), lim::max(), T(0), T(1), static_cast<T>(lim::lowest() + T(1)),
                        static_cast<T>(lim::max() - T(1))};
        for (auto& x : v) x = ex[rng() % (sizeof ex / sizeof(T))];
        break;
    }
    }
    return v;
}

// IEEE-754 total order for floats (-NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN), value
// order for integers: the order every clprim sort promises.
template <class T>
auto total_order_key(T x)
{
    if constexpr (std::is_same_v<T, cl_float>) {
        std::uint32_t u;
        std::memcpy(&u, &x, 4);
        return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    } else if constexpr (std::is_same_v<T, cl_double>) {
        std::uint64_t u;
        std::memcpy(&u, &x, 8);
        return (u & 0x8000000000000000ull) ? ~u : (u | 0x8000000000000000ull);
    } else {
        return x;
    }
}

template <class T>
bool total_less(T a, T b)
{
    return total_order_key(a) < total_order_key(b);
}

// Bit-for-bit equality (so -0.0 differs from +0.0 and NaNs compare by their bits).
template <class T>
bool bit_equal(const std::vector<T>& a, const std::vector<T>& b)
{
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// Index of the first element where a and b differ bitwise, or -1.
template <class T>
long first_difference(const std::vector<T>& a, const std::vector<T>& b)
{
    const std::size_t n = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i)
        if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) return long(i);
    return a.size() == b.size() ? -1 : long(n);
}

template <class T>
bc::vector<T> to_device(const std::vector<T>& host, bc::command_queue& queue)
{
    bc::vector<T> d(host.size(), queue.get_context());
    if (!host.empty()) bc::copy(host.begin(), host.end(), d.begin(), queue);
    return d;
}

template <class T>
std::vector<T> to_host(const bc::vector<T>& dev, bc::command_queue& queue)
{
    std::vector<T> h(dev.size());
    if (!h.empty()) bc::copy(dev.begin(), dev.end(), h.begin(), queue);
    queue.finish();
    return h;
}

// Sets a knob (a path or tuning variable the library reads per call) for the life of the object,
// then restores what was there: lets a suite force each path on the device under test. The
// library's knob parser sees it as a scoped override (clprim/detail/knobs.hpp); the environment
// is set too, for the knobs still read directly and for programs the test starts.
class env_override {
public:
    env_override(const char* name, const std::string& value) : env_override(name, value.c_str()) {}
    // value nullptr: the variable is unset for the scope.
    env_override(const char* name, const char* value) : name_(name), knob_(name, value ? value : "")
    {
        if (const char* old = std::getenv(name)) {
            had_ = true;
            old_ = old;
        }
        if (value) ::setenv(name, value, 1);
        else ::unsetenv(name);
    }
    ~env_override()
    {
        if (had_) ::setenv(name_, old_.c_str(), 1);
        else ::unsetenv(name_);
    }
    env_override(const env_override&) = delete;
    env_override& operator=(const env_override&) = delete;

private:
    const char* name_;
    clprim::detail::scoped_knob knob_;
    bool had_ = false;
    std::string old_;
};

// Runs round(who, queue, r) for r = 0 .. rounds-1 on two host threads at once (who = 0, 1), both
// on *shared or each on a new in-order queue (shared == nullptr). A round returns "" or what went
// wrong; an exception is a failure too. Returns each thread's first failure ("" when it passed),
// for the test to assert after the join: Boost.Test's assertions are not thread-safe.
template <class Round>
std::array<std::string, 2> run_on_two_threads(const bc::context& context, const bc::device& device,
                                              bc::command_queue* shared, int rounds, Round round)
{
    std::array<std::string, 2> failure;
    auto work = [&](int who) {
        try {
            bc::command_queue own(context, device);
            bc::command_queue& q = shared ? *shared : own;
            for (int r = 0; r < rounds && failure[who].empty(); ++r) failure[who] = round(who, q, r);
        } catch (const std::exception& e) {
            failure[who] = std::string("exception: ") + e.what();
        }
    };
    std::thread a(work, 0), b(work, 1);
    a.join();
    b.join();
    return failure;
}

} // namespace clprim_test

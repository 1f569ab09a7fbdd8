// The runtime layer: device choice, errors, kernel-source registry, program building and the
// on-disk binary cache (hit, miss, corrupt entry, disabled).
#define BOOST_TEST_MODULE clprim_runtime
#include "clprim_test_fixture.hpp"

#include <clprim/detail/binary_cache.hpp>
#include <clprim/detail/kernel_launch.hpp>
#include <clprim/detail/kernel_registry.hpp>
#include <clprim/detail/program_builder.hpp>
#include <clprim/detail/scratch_pool.hpp>

#include <cstdlib>
#include <fstream>
#include <unistd.h>

using namespace clprim_test;
namespace cd = clprim::detail;

namespace {

// Sets an environment variable for one scope.
struct scoped_env {
    std::string name;
    std::string old;
    bool had;
    scoped_env(const std::string& n, const char* value) : name(n)
    {
        const char* o = std::getenv(n.c_str());
        had = o != nullptr;
        if (had) old = o;
        if (value) ::setenv(n.c_str(), value, 1);
        else ::unsetenv(n.c_str());
    }
    ~scoped_env()
    {
        if (had) ::setenv(name.c_str(), old.c_str(), 1);
        else ::unsetenv(name.c_str());
    }
};

std::string fresh_cache_dir()
{
    char tmpl[] = "/tmp/clprim-test-cache-XXXXXX";
    const char* d = ::mkdtemp(tmpl);
    BOOST_REQUIRE(d != nullptr);
    return d;
}

// A kernel only this suite uses; a unique constant makes every call's source new to the caches.
std::string register_test_kernel(int tag)
{
    const std::string name = "runtime_test_" + std::to_string(tag) + "_" + std::to_string(::getpid()) + ".cl";
    cd::register_kernel_source(name.c_str(), "__kernel void add_tag(__global T* x) { x[get_global_id(0)] += (T)" +
                                                 std::to_string(tag) + "; }\n");
    return name;
}

int run_add_tag(const bc::program& program, bc::command_queue& queue)
{
    auto v = to_device(std::vector<cl_int>(4, 1), queue);
    bc::kernel k = program.create_kernel("add_tag");
    k.set_arg(0, v.get_buffer());
    queue.enqueue_1d_range_kernel(k, 0, 4, 0);
    return to_host(v, queue)[3];
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(runtime, fixture)

BOOST_AUTO_TEST_CASE(default_device_is_usable)
{
    BOOST_TEST(!device.name().empty());
    const auto list = clprim::describe_devices();
    BOOST_TEST(!list.empty());
}

BOOST_AUTO_TEST_CASE(device_selection)
{
    // By index 0, by a substring of the name (any case), by type.
    const auto all = bc::system::devices();
    BOOST_TEST(clprim::select_device("0").id() == all[0].id());
    std::string part = all[0].name().substr(0, 4);
    for (auto& c : part) c = char(std::toupper(static_cast<unsigned char>(c)));
    BOOST_TEST(clprim::select_device(part).id() == all[0].id());
    const bool is_cpu = on_cpu();
    BOOST_TEST((clprim::select_device(is_cpu ? "cpu" : "gpu").type() & device.type()) != 0u);
    {
        scoped_env e("CLPRIM_DEVICE", "0");
        BOOST_TEST(clprim::default_device().id() == all[0].id());
    }
}

BOOST_AUTO_TEST_CASE(unknown_device_lists_devices)
{
    scoped_env e("CLPRIM_DEVICE", "no-such-device-xyz");
    try {
        clprim::default_device();
        BOOST_FAIL("expected clprim::error");
    } catch (const clprim::error& err) {
        const std::string msg = err.what();
        BOOST_TEST(msg.find("no-such-device-xyz") != std::string::npos);
        BOOST_TEST(msg.find(bc::system::devices()[0].name()) != std::string::npos);
    }
    BOOST_CHECK_THROW(clprim::select_device("999"), clprim::error);
}

BOOST_AUTO_TEST_CASE(error_hierarchy)
{
    BOOST_CHECK_THROW(throw clprim::invalid_argument_error("x"), clprim::error);
    BOOST_CHECK_THROW(throw clprim::unsupported_error("x"), clprim::error);
    BOOST_CHECK_THROW(throw clprim::build_error("x", "log"), clprim::error);
    BOOST_CHECK_THROW(throw clprim::error("x"), std::runtime_error);
}

BOOST_AUTO_TEST_CASE(opencl_failures_become_clprim_errors)
{
    try {
        // What Boost.Compute throws when an OpenCL call fails (drivers differ in *which* calls
        // fail, so the error is raised directly rather than provoked).
        cd::guarded("allocating a huge buffer", [&] { throw bc::opencl_error(CL_MEM_OBJECT_ALLOCATION_FAILURE); });
        BOOST_FAIL("expected an error");
    } catch (const clprim::error& e) {
        BOOST_TEST(std::string(e.what()).find("allocating a huge buffer") != std::string::npos);
        BOOST_TEST(std::string(e.what()).find("Memory Object Allocation Failure") != std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(registry_holds_embedded_sources)
{
    BOOST_TEST(cd::has_kernel_source("clprim_types.cl"));
    BOOST_TEST(!cd::kernel_source("clprim_types.cl").empty());
    BOOST_CHECK_THROW(cd::kernel_source("no_such_file.cl"), clprim::error);
    const std::string joined = cd::join_sources({"clprim_types.cl"});
    BOOST_TEST(joined.find("#line 1 \"clprim_types.cl\"") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(build_error_carries_log)
{
    scoped_env off("CLPRIM_CACHE", "off");
    const std::string name = "runtime_broken_" + std::to_string(::getpid()) + ".cl";
    cd::register_kernel_source(name.c_str(), "__kernel void broken(__global int* x) { x[0] = undeclared_thing; }\n");
    try {
        cd::get_program(context, {name}, "");
        BOOST_FAIL("expected build_error");
    } catch (const clprim::build_error& e) {
        BOOST_TEST_MESSAGE("build log: " << e.log);
        BOOST_TEST(!e.log.empty());
        BOOST_TEST(std::string(e.what()).find("runtime_broken") != std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(program_cache_in_process)
{
    scoped_env off("CLPRIM_CACHE", "off");
    const std::string name = register_test_kernel(7);
    const auto p1 = cd::get_program(context, {name}, " -DT=int");
    const auto p2 = cd::get_program(context, {name}, " -DT=int");
    BOOST_TEST(p1.get() == p2.get()); // the same cl_program: built once
    const auto p3 = cd::get_program(context, {name}, " -DT=int -DOTHER");
    BOOST_TEST(p1.get() != p3.get()); // options are part of the key
    BOOST_TEST(run_add_tag(p1, queue) == 8);
}

BOOST_AUTO_TEST_CASE(disk_cache_miss_then_hit)
{
    const std::string dir = fresh_cache_dir();
    scoped_env d("CLPRIM_CACHE_DIR", dir.c_str());
    scoped_env on("CLPRIM_CACHE", "on"); // also on PoCL, where it is off unless asked for
    const std::string name = register_test_kernel(11);
    cd::binary_cache::reset_stats();
    {
        bc::context fresh(device); // a new context: the in-process cache is empty
        bc::command_queue q(fresh, device);
        BOOST_TEST(run_add_tag(cd::get_program(fresh, {name}, " -DT=int"), q) == 12);
    }
    auto s = cd::binary_cache::stats();
    BOOST_TEST(s.misses == 1u);
    BOOST_TEST(s.stores == 1u);
    {
        bc::context fresh(device);
        bc::command_queue q(fresh, device);
        BOOST_TEST(run_add_tag(cd::get_program(fresh, {name}, " -DT=int"), q) == 12);
    }
    s = cd::binary_cache::stats();
    BOOST_TEST(s.hits == 1u);
}

BOOST_AUTO_TEST_CASE(disk_cache_corrupt_entry_falls_back)
{
    const std::string dir = fresh_cache_dir();
    scoped_env d("CLPRIM_CACHE_DIR", dir.c_str());
    scoped_env on("CLPRIM_CACHE", "on"); // also on PoCL, where it is off unless asked for
    const std::string name = register_test_kernel(13);
    {
        bc::context fresh(device);
        cd::get_program(fresh, {name}, " -DT=int");
    }
    const std::string path = cd::binary_cache::entry_path(device, cd::join_sources({name}), cd::build_options(bc::context(device), " -DT=int"));
    std::ifstream check(path);
    BOOST_REQUIRE_MESSAGE(bool(check), "expected a cache entry at " << path);
    for (int mode = 0; mode < 3; ++mode) {
        {
            // 0: flip bytes in the middle; 1: truncate; 2: garbage of the right length.
            std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
            f.seekg(0, std::ios::end);
            const auto len = static_cast<long>(f.tellg());
            if (mode == 1) {
                f.close();
                BOOST_REQUIRE(::truncate(path.c_str(), len / 2) == 0);
            } else {
                f.seekp(mode == 0 ? len / 2 : 0);
                const std::string junk(mode == 0 ? 64 : std::size_t(len), '\x5a');
                f.write(junk.data(), std::streamsize(std::min<long>(long(junk.size()), len - (mode == 0 ? len / 2 : 0))));
            }
        }
        cd::binary_cache::reset_stats();
        bc::context fresh(device);
        bc::command_queue q(fresh, device);
        BOOST_TEST(run_add_tag(cd::get_program(fresh, {name}, " -DT=int"), q) == 14);
        BOOST_TEST(cd::binary_cache::stats().rejected == 1u);
        BOOST_TEST(cd::binary_cache::stats().stores == 1u); // rewritten from source
    }
}

BOOST_AUTO_TEST_CASE(disk_cache_off)
{
    const std::string dir = fresh_cache_dir();
    scoped_env d("CLPRIM_CACHE_DIR", dir.c_str());
    scoped_env off("CLPRIM_CACHE", "off");
    BOOST_TEST(!cd::binary_cache::enabled());
    const std::string name = register_test_kernel(17);
    cd::binary_cache::reset_stats();
    bc::context fresh(device);
    bc::command_queue q(fresh, device);
    BOOST_TEST(run_add_tag(cd::get_program(fresh, {name}, " -DT=int"), q) == 18);
    BOOST_TEST(cd::binary_cache::stats().stores == 0u);
    BOOST_TEST(cd::binary_cache::stats().hits == 0u);
}

// Unset, the cache is used on every platform but PoCL (which keeps its own kernel cache, and
// compiles every kernel of a program when asked for its binary).
BOOST_AUTO_TEST_CASE(disk_cache_automatic_by_platform)
{
    const std::string dir = fresh_cache_dir();
    scoped_env d("CLPRIM_CACHE_DIR", dir.c_str());
    scoped_env unset("CLPRIM_CACHE", nullptr);
    const bool pocl = device_under_test::get().pocl();
    BOOST_TEST(cd::binary_cache::enabled());
    BOOST_TEST(cd::binary_cache::enabled_for(device) == !pocl);
    const std::string name = register_test_kernel(19);
    cd::binary_cache::reset_stats();
    bc::context fresh(device);
    bc::command_queue q(fresh, device);
    BOOST_TEST(run_add_tag(cd::get_program(fresh, {name}, " -DT=int"), q) == 20);
    BOOST_TEST(cd::binary_cache::stats().stores == (pocl ? 0u : 1u));
    std::ifstream entry(cd::binary_cache::entry_path(device, cd::join_sources({name}), cd::build_options(fresh, " -DT=int")));
    BOOST_TEST(bool(entry) == !pocl);
    scoped_env on("CLPRIM_CACHE", "on");
    BOOST_TEST(cd::binary_cache::enabled_for(device));
}

BOOST_AUTO_TEST_CASE(cache_directory_defaults)
{
    scoped_env d("CLPRIM_CACHE_DIR", nullptr);
    {
        scoped_env x("XDG_CACHE_HOME", "/tmp/xdg-test");
        BOOST_TEST(cd::binary_cache::directory() == "/tmp/xdg-test/clprim");
    }
    {
        scoped_env x("XDG_CACHE_HOME", nullptr);
        scoped_env h("HOME", "/home/someone");
        BOOST_TEST(cd::binary_cache::directory() == "/home/someone/.cache/clprim");
    }
}

BOOST_AUTO_TEST_CASE(range_checks)
{
    bc::vector<cl_int> a(10, context), b(10, context);
    BOOST_CHECK_THROW(cd::checked_range(a.begin(), b.end(), queue, "t"), clprim::invalid_argument_error);
    BOOST_CHECK_THROW(cd::checked_range(a.begin() + 5, a.begin() + 2, queue, "t"), clprim::invalid_argument_error);
    BOOST_CHECK_THROW(cd::checked_output(a.begin() + 5, 6, queue, "t"), clprim::invalid_argument_error);
    bc::context other(device);
    bc::vector<cl_int> c(10, other);
    BOOST_CHECK_THROW(cd::checked_range(c.begin(), c.end(), queue, "t"), clprim::invalid_argument_error);
    const auto r = cd::checked_range(a.begin() + 2, a.begin() + 7, queue, "t");
    BOOST_TEST(r.offset == 2u);
    BOOST_TEST(r.size == 5u);
}

BOOST_AUTO_TEST_CASE(double_support_reported)
{
    if (device_under_test::get().has_fp64()) {
        BOOST_CHECK_NO_THROW(cd::require_type_support(cd::element_type::float64, device, "t"));
    } else {
        BOOST_CHECK_THROW(cd::require_type_support(cd::element_type::float64, device, "t"), clprim::unsupported_error);
    }
}

// The scratch pool hands a buffer back to the next lease on the same in-order queue, never to
// another queue's lease or to two leases at once, respects CLPRIM_SCRATCH_LIMIT_MB, and empties
// on release_scratch_memory().
BOOST_AUTO_TEST_CASE(scratch_pool_reuse_and_limits)
{
    clprim::release_scratch_memory();
    BOOST_TEST(cd::scratch_pooled_bytes() == 0u);
    cl_mem first = nullptr;
    {
        cd::scratch_lease lease(queue);
        const bc::buffer a = lease.buffer(1 << 20), b = lease.buffer(1 << 20);
        BOOST_TEST(a.get() != b.get()); // two buffers of one lease are distinct
        BOOST_TEST(a.size() >= std::size_t(1 << 20));
        first = a.get();
    }
    BOOST_TEST(cd::scratch_pooled_bytes() >= std::size_t(2 << 20));
    {
        cd::scratch_lease lease(queue);
        const bc::buffer a = lease.buffer(1 << 20);
        const bc::buffer tiny = lease.buffer(16); // a 1 MiB buffer would waste most of itself
        BOOST_TEST(tiny.size() < std::size_t(1 << 20));
        cd::scratch_lease other(queue); // a second lease on the same queue gets the other one
        const bc::buffer c = other.buffer(1 << 20);
        const bc::buffer d = other.buffer(1 << 20); // none left: a fresh one
        BOOST_TEST(a.get() != c.get());
        BOOST_TEST(d.get() != a.get());
        BOOST_TEST(d.get() != c.get());
        BOOST_TEST((a.get() == first || c.get() == first));
    }
    {
        bc::command_queue other_queue(context, device);
        cd::scratch_lease lease(other_queue);
        BOOST_TEST(lease.buffer(1 << 20).get() != first); // another queue never shares
    }
    setenv("CLPRIM_SCRATCH_LIMIT_MB", "0", 1);
    clprim::release_scratch_memory();
    {
        cd::scratch_lease lease(queue);
        (void)lease.buffer(1 << 20);
    }
    BOOST_TEST(cd::scratch_pooled_bytes() == 0u);
    unsetenv("CLPRIM_SCRATCH_LIMIT_MB");
    if (device.get_info<cl_command_queue_properties>(CL_DEVICE_QUEUE_PROPERTIES) & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) {
        bc::command_queue ooo(context, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
        cd::scratch_lease lease(ooo);
        (void)lease.buffer(1 << 20);
    }
    BOOST_TEST(cd::scratch_pooled_bytes() == 0u); // out-of-order queues are never pooled
    clprim::release_scratch_memory();
    BOOST_TEST(cd::scratch_pooled_bytes() == 0u);
}

// Per-kernel device times are recorded only when switched on and only on a profiling queue.
BOOST_AUTO_TEST_CASE(kernel_profile_records_launches)
{
    bc::command_queue pq(context, device, CL_QUEUE_PROFILING_ENABLE);
    bc::vector<cl_uint> v(100000, 1u, pq), out(100000, context);
    pq.finish();
    auto scan = [&](bc::command_queue& q) { clprim::exclusive_scan(v.begin(), v.end(), out.begin(), q); q.finish(); };
    scan(pq); // built before anything is recorded
    cd::kernel_profile(true);
    scan(queue); // not a profiling queue: nothing recorded
    BOOST_TEST(cd::kernel_profile_report().empty());
    scan(pq);
    const auto times = cd::kernel_profile_report();
    BOOST_TEST(!times.empty());
    std::size_t launches = 0;
    for (const auto& t : times) {
        BOOST_TEST(!t.name.empty());
        BOOST_TEST(t.ms >= 0.0);
        launches += t.launches;
    }
    BOOST_TEST(launches >= 1u);
    BOOST_TEST(cd::kernel_profile_report().empty()); // the report clears the record
    cd::kernel_profile(false);
    scan(pq);
    BOOST_TEST(cd::kernel_profile_report().empty());
}

BOOST_AUTO_TEST_SUITE_END()

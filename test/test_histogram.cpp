// clprim::histogram against a host histogram (every type, bin count, size and distribution the
// issue lists, accumulation, bad input), and the work-group histogram building block on its own
// in the radix sort's digit-count mode.
#define BOOST_TEST_MODULE clprim_histogram
#include "clprim_test_fixture.hpp"

#include <clprim/detail/device_limits.hpp>
#include <clprim/detail/primitives_kernels.hpp>

using namespace clprim_test;
namespace cd = clprim::detail;

BOOST_FIXTURE_TEST_SUITE(histogram, fixture)

// ---- digit-count mode: the work-group counting building block as the radix sort uses it ----

namespace {

// Builds the digit-count kernel for key type K with c counter copies per bin.
template <class K>
bc::kernel digit_kernel(bc::context& context, unsigned copies)
{
    const std::string opts = std::string(" -DDIGIT_KEY=") + (sizeof(K) == 4 ? "uint" : "ulong") +
                             " -DWG_HIST_COPIES=" + std::to_string(copies);
    auto program = cd::primitives_program(context, {"workgroup_histogram.cl", "histogram.cl"}, opts);
    return program.create_kernel("wg_digit_count");
}

// Runs wg_digit_count over keys[offset, offset + n) and checks the digit-major table against the host.
template <class K>
void check_digit_count(fixture& f, std::size_t n, unsigned shift, unsigned mask, unsigned copies,
                       std::size_t lsize, std::size_t items, std::size_t offset)
{
    std::mt19937_64 rng(n * 31 + shift * 7 + mask + copies);
    std::vector<K> keys(offset + n + 3);
    for (auto& k : keys) k = static_cast<K>(rng());
    // Some runs of equal keys, so several work-items hit one digit at once.
    for (std::size_t i = 0; i + 64 < keys.size(); i += 512)
        for (std::size_t j = 1; j < 64; ++j) keys[i + j] = keys[i];
    const std::size_t tile = lsize * items;
    const std::size_t groups = cd::ceil_div(n, tile);
    const std::size_t bins = std::size_t(mask) + 1;
    std::vector<cl_uint> expect(bins * groups, 0);
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t d = std::size_t((keys[offset + i] >> shift) & K(mask));
        ++expect[d * groups + i / tile];
    }
    if (groups == 0) return; // nothing to launch
    auto dkeys = to_device(keys, f.queue);
    bc::vector<cl_uint> dcounts(bins * groups, 0xdeadbeefu, f.queue); // plain stores overwrite all
    auto k = digit_kernel<K>(f.context, copies);
    k.set_arg(0, dkeys.get_buffer());
    k.set_arg(1, cl_ulong(offset));
    k.set_arg(2, cl_ulong(n));
    k.set_arg(3, cl_ulong(tile));
    k.set_arg(4, cl_uint(shift));
    k.set_arg(5, cl_uint(mask));
    k.set_arg(6, dcounts.get_buffer());
    k.set_arg(7, bc::local_buffer<cl_uint>(bins * copies));
    f.queue.enqueue_1d_range_kernel(k, 0, groups * lsize, lsize);
    const auto got = to_host(dcounts, f.queue);
    BOOST_TEST(got == expect, "digit count K=" << type_label<K>() << " n=" << n << " shift=" << shift
                                               << " mask=" << mask << " copies=" << copies << " lsize=" << lsize);
    BOOST_TEST(to_host(dkeys, f.queue) == keys); // keys untouched
}

} // namespace

BOOST_AUTO_TEST_CASE(digit_count_uint)
{
    for (unsigned copies : {1u, 2u, 8u})
        for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(100), std::size_t(4097), std::size_t(65537)}) {
            check_digit_count<cl_uint>(*this, n, 0, 0xff, copies, 128, 4, 0);
            check_digit_count<cl_uint>(*this, n, 28, 0xf, copies, 64, 3, 5);
        }
    check_digit_count<cl_uint>(*this, (1u << 20) + 3, 8, 0xff, 4, 256, 8, 1);
    check_digit_count<cl_uint>(*this, 4097, 0, 0, 2, 64, 2, 0);        // one digit
    check_digit_count<cl_uint>(*this, 65537, 16, 0xffff, 1, 256, 4, 0); // 65536 digits
}

BOOST_AUTO_TEST_CASE(digit_count_ulong)
{
    for (unsigned copies : {1u, 4u})
        for (std::size_t n : {std::size_t(1), std::size_t(100), std::size_t(4097), std::size_t(65537)}) {
            check_digit_count<cl_ulong>(*this, n, 56, 0xff, copies, 128, 4, 0);
            check_digit_count<cl_ulong>(*this, n, 32, 0x7ff, copies, 256, 2, 7);
        }
    check_digit_count<cl_ulong>(*this, (1u << 20) + 3, 0, 0xff, 8, 256, 16, 0);
}
BOOST_AUTO_TEST_SUITE_END()

// oclgrind_fill_repro: shows the Oclgrind behavior behind the uninitialised-value reports that the
// oclgrind_tour sweep (docs/RESULTS.md, "Oclgrind sweep (issue #34)") classifies as false positives.
// The program does not use the library's kernels. Run it as
//     oclgrind --uninitialized build/test/oclgrind_fill_repro 2> log
// Each case prints "== case" on stderr. Every case stores correct, initialised values, and the
// program checks them on the host (exit status 0 when all are right). Oclgrind 21.10 (and the
// same code in 26.03) still reports the cases marked "reported":
//
// Oclgrind's uninitialised-value checker keeps a shadow copy for each buffer. A host-side store
// (clEnqueueWriteBuffer, each pattern that clEnqueueFillBuffer writes, and the destination of
// clEnqueueCopyBuffer) replaces the buffer's shadow with one that is exactly as large as that
// store and starts at the buffer's first byte (Uninitialized::hostMemoryStore ->
// ShadowMemory::allocate). A store that does not start at offset 0 is then dropped. After that,
// every byte past the shadow's end reads as uninitialised, even after a kernel has written it,
// because a kernel store that falls outside the shadow is dropped as well.
// The checker also has no hook for a released buffer, so a shadow outlives its buffer and
// becomes the shadow of the next buffer that Oclgrind places at the same address.
//   a. whole buffer written by clEnqueueWriteBuffer, then read by a kernel   clean
//   b. a kernel writes every element of a fresh buffer, a second one reads   clean
//   c. atomic_xchg writes every element of a fresh buffer, a kernel reads     reported (*)
//   d. buffer cleared by clEnqueueFillBuffer (4-byte pattern), kernel reads  reported
//   e. fill, then atomic_inc on the words (look-back slots, status words)     reported
//   f. 1-byte clEnqueueWriteBuffer at offset 0 into a fresh buffer (what the
//      scratch pool does so that lazily allocating drivers allocate at once),
//      then b                                                                reported
//   g. b again, in a buffer created after the release of a buffer as in f      reported
// (*) The checker treats the value that any atomic except atomic_cmpxchg stores as uninitialised
// when the word that the atomic replaces is uninitialised. This also happens for atomic_xchg,
// whose stored value does not depend on that word.
#include <clprim/clprim.hpp>

#include <cstdio>
#include <vector>

namespace bc = boost::compute;

namespace {

const char* const source = R"(
__kernel void produce(__global uint *b) { const size_t i = get_global_id(0); b[i] = (uint)i; }
__kernel void consume(__global const uint *in, __global uint *out)
{ const size_t i = get_global_id(0); out[i] = in[i] + 1u; }
__kernel void bump(__global uint *b) { atomic_inc(&b[get_global_id(0)]); }
__kernel void publish(__global uint *b) { const size_t i = get_global_id(0); atomic_xchg(&b[i], (uint)i); }
)";

const std::size_t n = 64;
int failures = 0;
// Every buffer stays alive, so that no case but g gets the address of a released buffer.
std::vector<bc::buffer> keep;

void announce(const char* name)
{
    std::fprintf(stderr, "\n== %s\n", name);
    std::fflush(stderr);
    std::printf("%s\n", name);
    std::fflush(stdout);
}

// consume: out[i] = in[i] + 1, checked against expected + 1.
void consume_and_check(bc::command_queue& q, bc::kernel consume, const bc::buffer& in, const std::vector<cl_uint>& expected)
{
    bc::buffer out(q.get_context(), n * sizeof(cl_uint));
    keep.push_back(in);
    keep.push_back(out);
    consume.set_arg(0, in);
    consume.set_arg(1, out);
    q.enqueue_1d_range_kernel(consume, 0, n, 0);
    std::vector<cl_uint> h(n);
    q.enqueue_read_buffer(out, 0, n * sizeof(cl_uint), h.data());
    for (std::size_t i = 0; i < n; ++i)
        if (h[i] != expected[i] + 1) {
            ++failures;
            std::printf("  WRONG at %zu\n", i);
            return;
        }
}

} // namespace

int main()
{
    try {
        bc::device device = clprim::default_device();
        bc::context context(device);
        bc::command_queue q(context, device);
        std::printf("oclgrind_fill_repro on %s\n", device.name().c_str());
        bc::program program = bc::program::build_with_source(source, context);
        bc::kernel produce = program.create_kernel("produce"), consume = program.create_kernel("consume"),
                   bump = program.create_kernel("bump"), publish = program.create_kernel("publish");
        std::vector<cl_uint> iota(n), zeros(n, 0), ones(n, 1);
        for (std::size_t i = 0; i < n; ++i) iota[i] = cl_uint(i);
        const std::size_t bytes = n * sizeof(cl_uint);
        const cl_uint zero = 0;

        announce("a. clEnqueueWriteBuffer of the whole buffer, kernel reads (expected clean)");
        {
            bc::buffer b(context, bytes);
            q.enqueue_write_buffer(b, 0, bytes, iota.data());
            consume_and_check(q, consume, b, iota);
        }
        announce("b. kernel writes all of a fresh buffer, kernel reads (expected clean)");
        {
            bc::buffer b(context, bytes);
            produce.set_arg(0, b);
            q.enqueue_1d_range_kernel(produce, 0, n, 0);
            consume_and_check(q, consume, b, iota);
        }
        announce("c. atomic_xchg writes all of a fresh buffer, kernel reads (Oclgrind reports it)");
        {
            bc::buffer b(context, bytes);
            publish.set_arg(0, b);
            q.enqueue_1d_range_kernel(publish, 0, n, 0);
            consume_and_check(q, consume, b, iota);
        }
        announce("d. clEnqueueFillBuffer, kernel reads (Oclgrind reports it)");
        {
            bc::buffer b(context, bytes);
            q.enqueue_fill_buffer(b, &zero, sizeof zero, 0, bytes);
            consume_and_check(q, consume, b, zeros);
        }
        announce("e. clEnqueueFillBuffer, atomic_inc (Oclgrind reports it)");
        {
            bc::buffer b(context, bytes);
            q.enqueue_fill_buffer(b, &zero, sizeof zero, 0, bytes);
            bump.set_arg(0, b);
            q.enqueue_1d_range_kernel(bump, 0, n, 0);
            consume_and_check(q, consume, b, ones);
        }
        announce("f. 1-byte write at offset 0, kernel writes all, kernel reads (Oclgrind reports it)");
        {
            bc::buffer b(context, bytes);
            const unsigned char byte = 0;
            q.enqueue_write_buffer(b, 0, 1, &byte);
            produce.set_arg(0, b);
            q.enqueue_1d_range_kernel(produce, 0, n, 0);
            consume_and_check(q, consume, b, iota);
        }
        announce("g. as b, in a buffer created after one as in f was released (Oclgrind reports it)");
        {
            {
                bc::buffer released(context, bytes); // its shadow shrinks to 1 byte, as in f
                const unsigned char byte = 0;
                q.enqueue_write_buffer(released, 0, 1, &byte);
                q.finish();
            } // Oclgrind gives its address to the next buffer created
            bc::buffer b(context, bytes);
            produce.set_arg(0, b);
            q.enqueue_1d_range_kernel(produce, 0, n, 0);
            consume_and_check(q, consume, b, iota);
        }
        q.finish();
    } catch (const std::exception& e) {
        std::printf("exception: %s\n", e.what());
        return 1;
    }
    std::printf("%s\n", failures ? "SOME RESULTS WRONG" : "all results right");
    return failures ? 1 : 0;
}

#include <clprim/detail/checks.hpp>
#include <clprim/detail/queue_info.hpp>
#include <clprim/error.hpp>

#include <boost/compute/exception.hpp>

namespace clprim {
namespace detail {

void rethrow_as_clprim_error(const char* what)
{
    try {
        throw;
    } catch (const clprim::error&) {
        throw;
    } catch (const bc::opencl_error& e) {
        throw clprim::error(std::string(what) + ": OpenCL error " + e.error_string() + " (" +
                            std::to_string(e.error_code()) + ")");
    } catch (const std::bad_alloc&) {
        throw clprim::error(std::string(what) + ": out of host memory");
    } catch (const std::exception& e) {
        throw clprim::error(std::string(what) + ": " + e.what());
    }
}

void check_range_impl(const bc::buffer& first_buf, std::size_t first_index,
                      const bc::buffer& last_buf, std::size_t last_index,
                      std::size_t element_size, const bc::command_queue& queue, const char* who)
{
    if (first_buf.get() != last_buf.get())
        throw invalid_argument_error(std::string(who) + ": first and last belong to different buffers");
    if (last_index < first_index)
        throw invalid_argument_error(std::string(who) + ": last comes before first");
    check_output_impl(first_buf, first_index, last_index - first_index, element_size, queue, who);
}

void check_output_impl(const bc::buffer& buf, std::size_t index, std::size_t n,
                       std::size_t element_size, const bc::command_queue& queue, const char* who)
{
    if (!buf.get()) {
        if (n == 0) return;
        throw invalid_argument_error(std::string(who) + ": the range has no buffer");
    }
    const std::size_t bytes = buf.size();
    if (index > bytes / element_size || n > bytes / element_size - index)
        throw invalid_argument_error(std::string(who) + ": the range runs past the end of its buffer");
    // The contexts' handles without Boost.Compute's context objects (each a retain and a release:
    // driver calls at every range of every call).
    // The queue's from queue_info (no driver query on this thread's last queues).
    cl_context buffer_context = nullptr;
    if (clGetMemObjectInfo(buf.get(), CL_MEM_CONTEXT, sizeof buffer_context, &buffer_context, nullptr) != CL_SUCCESS)
        throw invalid_argument_error(std::string(who) + ": the range's buffer is not valid");
    if (buffer_context != info_of(queue).context.get())
        throw invalid_argument_error(std::string(who) +
                                     ": the buffer belongs to another context than the queue");
}

} // namespace detail
} // namespace clprim

#include <clprim/sort.hpp>

namespace clprim {
namespace detail {

void sort_impl(const sort_request& request, sort_algorithm algorithm, bc::command_queue& queue)
{
    switch (algorithm) {
    case sort_algorithm::radix: return radix_sort_impl(request, queue);
    case sort_algorithm::bitonic: return bitonic_sort_impl(request, bitonic_variant::fused, queue);
    case sort_algorithm::odd_even: return odd_even_sort_impl(request, queue);
    case sort_algorithm::merge: return merge_sort_impl(request, queue);
    case sort_algorithm::boost_compute: break; // handled by the templates in sort.hpp
    }
    throw invalid_argument_error("clprim::sort: unknown sort_algorithm");
}

} // namespace detail
} // namespace clprim

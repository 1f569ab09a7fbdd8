#pragma once
/// \file
/// \brief The whole of clprim in one include: runtime, primitives and algorithms.
///
/// \code
/// #include <clprim/clprim.hpp>
/// namespace bc = boost::compute;
/// bc::command_queue queue(context, device);
/// clprim::sort(keys.begin(), keys.end(), queue);
/// \endcode
#include <clprim/config.hpp>
#include <clprim/device.hpp>
#include <clprim/error.hpp>
#include <clprim/scratch.hpp>

#include <clprim/copy_if.hpp>
#include <clprim/operators.hpp>
#include <clprim/histogram.hpp>
#include <clprim/reduce.hpp>
#include <clprim/scan.hpp>
#include <clprim/segmented_reduce.hpp>
#include <clprim/workgroup_source.hpp>
#include <clprim/by_key.hpp>
#include <clprim/selection.hpp>
#include <clprim/min_max_element.hpp>

#include <clprim/bitonic_sort.hpp>
#include <clprim/merge_sort.hpp>
#include <clprim/odd_even_sort.hpp>
#include <clprim/radix_sort.hpp>
#include <clprim/segmented_sort.hpp>
#include <clprim/sort.hpp>
#include <clprim/sort_comparator.hpp>
#include <clprim/merge.hpp>
#include <clprim/search.hpp>
#include <clprim/top_k.hpp>
#include <clprim/multi_device.hpp>

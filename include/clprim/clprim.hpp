#pragma once
// The whole of clprim: runtime, primitives and algorithms.
#include <clprim/config.hpp>
#include <clprim/device.hpp>
#include <clprim/error.hpp>
#include <clprim/scratch.hpp>

#include <clprim/copy_if.hpp>
#include <clprim/histogram.hpp>
#include <clprim/reduce.hpp>
#include <clprim/scan.hpp>
#include <clprim/segmented_reduce.hpp>
#include <clprim/workgroup_source.hpp>

#include <clprim/bitonic_sort.hpp>
#include <clprim/merge_sort.hpp>
#include <clprim/odd_even_sort.hpp>
#include <clprim/radix_sort.hpp>
#include <clprim/segmented_sort.hpp>
#include <clprim/sort.hpp>

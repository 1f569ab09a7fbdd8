#pragma once
// Precompiled once for all suites: the heavy, unchanging headers (Boost.Compute through clprim).
// Boost.Test stays out: each suite's BOOST_TEST_MODULE must precede its unit_test.hpp.
#include <clprim/clprim.hpp>

#include <boost/compute/algorithm.hpp>
#include <boost/compute/container/vector.hpp>
#include <boost/mpl/list.hpp>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

// Option parsing of the example tools: sizes, algorithm and type names, bad input.
#define BOOST_TEST_MODULE clprim_tools
#include <boost/test/unit_test.hpp>

#include "sort_compare_options.hpp"

using namespace clprim_examples;

namespace {
sort_compare_options parse(std::vector<const char*> args)
{
    args.insert(args.begin(), "sort_compare");
    return parse_sort_compare_options(int(args.size()), args.data());
}
} // namespace

BOOST_AUTO_TEST_SUITE(tools)

BOOST_AUTO_TEST_CASE(sizes_in_every_spelling)
{
    BOOST_TEST(parse_size("67108864") == 67108864u);
    BOOST_TEST(parse_size("2^26") == 67108864u);
    BOOST_TEST(parse_size("64M") == 67108864u);
    BOOST_TEST(parse_size("16k") == 16384u);
    BOOST_TEST(parse_size("1G") == (std::size_t(1) << 30));
    BOOST_TEST(parse_size("0") == 0u);
    for (const char* bad : {"", "abc", "12x", "2^", "3^4", "-5", "2^99", "M", "1.5M", "99999999999999999999"})
        BOOST_CHECK_THROW(parse_size(bad), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(defaults_are_a_good_first_demo)
{
    const auto o = parse({});
    BOOST_TEST(o.n == (std::size_t(1) << 24));
    BOOST_TEST(o.type == "uint");
    BOOST_TEST(o.algorithms.size() == sort_compare_algorithms().size());
    BOOST_TEST(!o.descending);
    BOOST_TEST(!o.pairs);
    BOOST_TEST(!o.n_given);
    BOOST_TEST(parse({"--n", "2^24"}).n_given);
}

BOOST_AUTO_TEST_CASE(options_are_read)
{
    const auto o = parse({"--algorithm", "radix,boost_compute", "--n", "16M", "--type", "float", "--order",
                          "descending", "--distribution", "few_unique", "--pairs", "--repeat", "3", "--csv", "x.csv"});
    BOOST_TEST(o.algorithms == (std::vector<std::string>{"radix", "boost_compute"}), boost::test_tools::per_element());
    BOOST_TEST(o.n == (std::size_t(1) << 24));
    BOOST_TEST(o.type == "float");
    BOOST_TEST(o.descending);
    BOOST_TEST(o.distribution == "few_unique");
    BOOST_TEST(o.pairs);
    BOOST_TEST(o.repeat == 3);
    BOOST_TEST(o.csv == "x.csv");
    BOOST_TEST(parse({"--help"}).help);
}

BOOST_AUTO_TEST_CASE(bad_command_lines_are_usage_errors)
{
    BOOST_CHECK_THROW(parse({"--n", "12x"}), usage_error);
    BOOST_CHECK_THROW(parse({"--algorithm", "quick"}), usage_error);
    BOOST_CHECK_THROW(parse({"--algorithm", "radix,quick"}), usage_error);
    BOOST_CHECK_THROW(parse({"--type", "short"}), usage_error);
    BOOST_CHECK_THROW(parse({"--order", "up"}), usage_error);
    BOOST_CHECK_THROW(parse({"--distribution", "zipf"}), usage_error);
    BOOST_CHECK_THROW(parse({"--repeat", "0"}), usage_error);
    BOOST_CHECK_THROW(parse({"--repeat", "many"}), usage_error);
    BOOST_CHECK_THROW(parse({"--no-such-option"}), usage_error);
}

BOOST_AUTO_TEST_SUITE_END()

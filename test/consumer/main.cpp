// Uses clprim as an outside project would: one umbrella header, the public API only.
#include <clprim/clprim.hpp>

#include <iostream>
#include <numeric>
#include <vector>

int main()
{
    namespace bc = boost::compute;
    const bc::device device = clprim::default_device();
    bc::context context(device);
    bc::command_queue queue(context, device);

    std::vector<cl_uint> host(1000);
    std::iota(host.begin(), host.end(), 1u);
    bc::vector<cl_uint> data(host.begin(), host.end(), queue);
    const cl_uint sum = clprim::reduce(data.begin(), data.end(), queue);
    const cl_uint expected = 1000u * 1001u / 2u;
    std::cout << "clprim consumer on " << device.name() << ": sum = " << sum << (sum == expected ? " (ok)" : " (WRONG)")
              << "\n";
    return sum == expected ? 0 : 1;
}

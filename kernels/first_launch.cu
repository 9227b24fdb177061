/* The first_launch family's kernels: CTS_FRESH_KERNELS distinct kernels, so
 * that every launch the family makes is the first launch of its kernel in the
 * process.  Under lazy loading the runtime loads a kernel at its first use;
 * this file is its own module (fatbin), loaded at the first use of any of
 * them: the family's first idle call, before anything is measured.
 *
 * Compiled once for both builds (the library cts_fresh, CMakeLists.txt): it
 * makes no call that takes a stream, so the default stream it was compiled
 * for does not matter; the launch, which does, is cases/first_launch.c's
 * cts_launch_fresh, compiled with each build.  (Its 1,024 kernels for every
 * architecture took 19 s to compile, twice, on CI's two processors.) */
#include <cuda_runtime.h>
#include <utility>

#define CTS_FRESH_KERNELS 1024

/* Stores value + N where it is told: the launch ran, and it was this kernel. */
template <int N> __global__ void cts_fresh(unsigned int *where, unsigned int value)
{
    *where = value + N;
}

template <int... I> static const void *const *fresh_table(std::integer_sequence<int, I...>)
{
    static const void *const table[] = {(const void *)&cts_fresh<I>...};
    return table;
}

/* The kernels, as cudaLaunchKernel takes them: kernel i stores value + i. */
extern "C" const void *const *cts_fresh_table(void)
{
    return fresh_table(std::make_integer_sequence<int, CTS_FRESH_KERNELS>());
}

extern "C" int cts_fresh_kernels(void) { return CTS_FRESH_KERNELS; }

/* The pool's next never-launched kernel, for whichever family asks (first_launch,
 * capture): -1 when none is left.  One host thread asks at a time. */
static int fresh_used;
extern "C" int cts_fresh_take(void) { return fresh_used < CTS_FRESH_KERNELS ? fresh_used++ : -1; }
extern "C" int cts_fresh_left(void) { return CTS_FRESH_KERNELS - fresh_used; }

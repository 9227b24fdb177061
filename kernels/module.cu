/* The module the trigger family loads, looks into and unloads at run time
 * (cuModuleLoadData, cuModuleGetFunction, cuLaunchKernel, cuModuleUnload).
 * It is built on its own into a fatbin and embedded (CMakeLists.txt), so
 * loading it is the driver's work alone, not the runtime's. */

/* Writes its argument where it is told: the launch did something visible. */
extern "C" __global__ void cts_module_store(unsigned int *where, unsigned int value)
{
    *where = value;
}

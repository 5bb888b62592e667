/* pocl_subdevice_context_devices.c - PoCL 3.1 (Debian 12): a context created from two
 * sub-devices reports one device, their parent, for CL_CONTEXT_DEVICES and
 * CL_CONTEXT_NUM_DEVICES; the spec says the context's devices are the ones it was
 * created with. Queues on the sub-devices still work. Build and run:
 *   gcc pocl_subdevice_context_devices.c -lOpenCL -o repro &&
 *   OCL_ICD_VENDORS=/etc/OpenCL/vendors/pocl.icd ./repro
 * Prints "BUG" (and exits 1) where the context's devices are not the sub-devices. */
/* SPDX-License-Identifier: MIT */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>

int main(void)
{
    cl_platform_id p;
    cl_device_id d, sub[2], got[4] = {0};
    cl_uint cus = 0, count = 0, num = 0;
    cl_int e;
    size_t bytes = 0;
    if (clGetPlatformIDs(1, &p, NULL) || clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL))
        return 2;
    clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
    const cl_device_partition_property props[] = {CL_DEVICE_PARTITION_EQUALLY, cus / 2, 0};
    if (cus < 2 || clCreateSubDevices(d, props, 2, sub, &count) || count != 2) return 2;
    cl_context c = clCreateContext(NULL, 2, sub, NULL, NULL, &e);
    if (e) return 2;
    clGetContextInfo(c, CL_CONTEXT_NUM_DEVICES, sizeof num, &num, NULL);
    clGetContextInfo(c, CL_CONTEXT_DEVICES, sizeof got, got, &bytes);
    printf("sub-devices %p %p; context devices: %u (%zu bytes) %p %p; parent %p\n",
           (void *)sub[0], (void *)sub[1], num, bytes, (void *)got[0], (void *)got[1],
           (void *)d);
    const int ok = num == 2 && got[0] == sub[0] && got[1] == sub[1];
    puts(ok ? "OK" : "BUG: the context does not list its sub-devices");
    clReleaseContext(c);
    clReleaseDevice(sub[0]);
    clReleaseDevice(sub[1]);
    return ok ? 0 : 1;
}

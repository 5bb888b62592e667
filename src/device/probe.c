/* probe.c - what a device reports about itself, read once per context: names and
 * versions, vendor (normalised), extensions and OpenCL C 3.0 features, local memory,
 * limits, sub-group width, fp64 and 64-bit atomics. The tune layer overrides and
 * completes it. */
/* SPDX-License-Identifier: MIT */
#include "device/device.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Extension query tokens and enums that 1.2 headers may lack. */
#ifndef CL_DEVICE_WARP_SIZE_NV
#define CL_DEVICE_WARP_SIZE_NV 0x4003
#endif
#ifndef CL_DEVICE_WAVEFRONT_WIDTH_AMD
#define CL_DEVICE_WAVEFRONT_WIDTH_AMD 0x4043
#endif
#ifndef CL_DEVICE_SUB_GROUP_SIZES_INTEL
#define CL_DEVICE_SUB_GROUP_SIZES_INTEL 0x4108
#endif
#define CLSCAN_DEVICE_OPENCL_C_FEATURES 0x106F           /* OpenCL 3.0 */
#define CLSCAN_DEVICE_PREFERRED_WG_SIZE_MULTIPLE 0x1067  /* OpenCL 3.0 */
#define CLSCAN_NAME_VERSION_MAX_NAME_SIZE 64

/* ------------------------------------------------------------------ vendors -- */

static const struct {
    clscan__vendor vendor;
    const char *name;     /* normalised name */
    cl_uint pci_id;       /* CL_DEVICE_VENDOR_ID */
    const char *matches[3]; /* case-insensitive substrings of CL_DEVICE_VENDOR */
} vendors[] = {
    {CLSCAN__VENDOR_NVIDIA, "nvidia", 0x10DE, {"nvidia", NULL, NULL}},
    {CLSCAN__VENDOR_AMD, "amd", 0x1002, {"advanced micro devices", "amd", NULL}},
    {CLSCAN__VENDOR_INTEL, "intel", 0x8086, {"intel", NULL, NULL}},
    {CLSCAN__VENDOR_APPLE, "apple", 0x1027F00, {"apple", NULL, NULL}},
    {CLSCAN__VENDOR_ARM, "arm", 0x13B5, {"arm", NULL, NULL}},
    {CLSCAN__VENDOR_QUALCOMM, "qualcomm", 0x5143, {"qualcomm", NULL, NULL}},
};

static int contains_nocase(const char *hay, const char *needle)
{
    size_t ln = strlen(needle);
    for (; *hay; ++hay) {
        size_t i = 0;
        while (i < ln && tolower((unsigned char)hay[i]) == needle[i]) ++i;
        if (i == ln) return 1;
    }
    return 0;
}

clscan__vendor clscan__vendor_normalise(cl_uint vendor_id, const char *vendor_name)
{
    /* The name first: CPU implementations report odd ids (PoCL on an AMD CPU gives
     * Intel's 0x8086 with the name "AuthenticAMD"). */
    size_t count = sizeof vendors / sizeof vendors[0];
    for (size_t i = 0; i < count && vendor_name; ++i)
        for (int m = 0; m < 3 && vendors[i].matches[m]; ++m)
            if (contains_nocase(vendor_name, vendors[i].matches[m])) return vendors[i].vendor;
    for (size_t i = 0; i < count; ++i)
        if (vendor_id == vendors[i].pci_id) return vendors[i].vendor;
    return CLSCAN__VENDOR_OTHER;
}

const char *clscan__vendor_name(clscan__vendor v)
{
    for (size_t i = 0; i < sizeof vendors / sizeof vendors[0]; ++i)
        if (vendors[i].vendor == v) return vendors[i].name;
    return "other";
}

bool clscan__vendor_from_name(const char *name, clscan__vendor *out)
{
    if (strcmp(name, "other") == 0) {
        *out = CLSCAN__VENDOR_OTHER;
        return 1;
    }
    for (size_t i = 0; i < sizeof vendors / sizeof vendors[0]; ++i)
        if (strcmp(name, vendors[i].name) == 0) {
            *out = vendors[i].vendor;
            return 1;
        }
    return 0;
}

/* ------------------------------------------------------------------- probing -- */

/* A malloc'd copy of a platform or device string query, in full (a buffer too small makes
 * a query fail without writing anything: PoCL's device version is 66 bytes); NULL when
 * the query fails (*err says why) or memory runs out. */
static char *info_text(bool is_device, void *obj, cl_uint what, cl_int *err)
{
    size_t len = 0;
    *err = is_device ? clGetDeviceInfo((cl_device_id)obj, what, 0, NULL, &len)
                     : clGetPlatformInfo((cl_platform_id)obj, what, 0, NULL, &len);
    if (*err != CL_SUCCESS) return NULL;
    char *text = calloc(len + 1, 1);
    if (!text) {
        *err = CL_OUT_OF_HOST_MEMORY;
        return NULL;
    }
    *err = is_device ? clGetDeviceInfo((cl_device_id)obj, what, len, text, NULL)
                     : clGetPlatformInfo((cl_platform_id)obj, what, len, text, NULL);
    if (*err != CL_SUCCESS) {
        free(text);
        return NULL;
    }
    return text;
}

/* Copies what of text fits into buf (size bytes; "" for NULL), without the trailing
 * spaces some drivers add. */
static void copy_trimmed(char *buf, size_t size, const char *text)
{
    snprintf(buf, size, "%s", text ? text : "");
    for (size_t n = strlen(buf); n && isspace((unsigned char)buf[n - 1]); --n) buf[n - 1] = 0;
}

static clscan_status probe_features(cl_device_id d, clscan__profile *p)
{
    static const struct {
        const char *name;
        unsigned bit;
    } names[] = {
        {"__opencl_c_subgroups", CLSCAN__FEAT_SUBGROUPS},
        {"__opencl_c_work_group_collective_functions", CLSCAN__FEAT_WG_COLLECTIVES},
        {"__opencl_c_atomic_order_acq_rel", CLSCAN__FEAT_ATOMIC_ACQ_REL},
        {"__opencl_c_atomic_order_seq_cst", CLSCAN__FEAT_ATOMIC_SEQ_CST},
        {"__opencl_c_atomic_scope_device", CLSCAN__FEAT_ATOMIC_SCOPE_DEVICE},
        {"__opencl_c_generic_address_space", CLSCAN__FEAT_GENERIC_AS},
        {"__opencl_c_fp64", CLSCAN__FEAT_FP64},
        {"__opencl_c_int64", CLSCAN__FEAT_INT64},
    };
    typedef struct {
        cl_uint version;
        char name[CLSCAN_NAME_VERSION_MAX_NAME_SIZE];
    } name_version;
    size_t bytes = 0;
    if (p->cl_major < 3 ||
        clGetDeviceInfo(d, CLSCAN_DEVICE_OPENCL_C_FEATURES, 0, NULL, &bytes) != CL_SUCCESS ||
        bytes == 0)
        return CLSCAN_SUCCESS; /* no 3.0 features to read: not an error */
    name_version *list = malloc(bytes);
    if (!list) return CLSCAN_ERROR_OUT_OF_RESOURCES;
    if (clGetDeviceInfo(d, CLSCAN_DEVICE_OPENCL_C_FEATURES, bytes, list, NULL) == CL_SUCCESS) {
        for (size_t i = 0; i < bytes / sizeof *list; ++i) {
            list[i].name[CLSCAN_NAME_VERSION_MAX_NAME_SIZE - 1] = '\0';
            for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k)
                if (strcmp(list[i].name, names[k].name) == 0) p->features |= names[k].bit;
        }
    }
    free(list);
    return CLSCAN_SUCCESS;
}

/* Sub-group width from the vendor queries that need no kernel. */
static void probe_subgroup_width(cl_device_id d, clscan__profile *p)
{
    cl_uint w = 0;
    if (clscan__has_token(p->extensions, "cl_nv_device_attribute_query") &&
        clGetDeviceInfo(d, CL_DEVICE_WARP_SIZE_NV, sizeof w, &w, NULL) == CL_SUCCESS && w) {
        p->subgroup_width = w;
        p->subgroup_source = "CL_DEVICE_WARP_SIZE_NV";
        p->subgroup_queried = 1;
        return;
    }
    if (clscan__has_token(p->extensions, "cl_amd_device_attribute_query") &&
        clGetDeviceInfo(d, CL_DEVICE_WAVEFRONT_WIDTH_AMD, sizeof w, &w, NULL) == CL_SUCCESS &&
        w) {
        p->subgroup_width = w;
        p->subgroup_source = "CL_DEVICE_WAVEFRONT_WIDTH_AMD";
        p->subgroup_queried = 1;
        return;
    }
    size_t sizes[16], bytes = 0;
    if (clscan__has_token(p->extensions, "cl_intel_required_subgroup_size") &&
        clGetDeviceInfo(d, CL_DEVICE_SUB_GROUP_SIZES_INTEL, sizeof sizes, sizes, &bytes) ==
            CL_SUCCESS) {
        /* 16 where offered (SIMD16 is Intel's usual width for 32-bit work), else the
         * largest size listed. */
        for (size_t i = 0; i < bytes / sizeof sizes[0]; ++i) {
            if (p->subgroup_width != 16 && (sizes[i] == 16 || sizes[i] > p->subgroup_width))
                p->subgroup_width = (cl_uint)sizes[i];
            if (sizes[i] && sizes[i] <= 0x80000000u && !(sizes[i] & (sizes[i] - 1)))
                p->sg_intel_widths |= (cl_uint)sizes[i]; /* (powers of two: one bit each) */
        }
        if (p->subgroup_width) {
            p->subgroup_source = "CL_DEVICE_SUB_GROUP_SIZES_INTEL";
            p->subgroup_queried = 1;
            return;
        }
    }
    p->subgroup_source = "unknown (no query without a kernel)";
}

clscan_status clscan__device_probe(const clscan_context *ctx, cl_device_id d, clscan__profile *p)
{
    memset(p, 0, sizeof *p);

    cl_platform_id platform;
    CLSCAN__FORWARD_CL(ctx, clGetDeviceInfo(d, CL_DEVICE_PLATFORM, sizeof platform, &platform,
                                           NULL),
                      "clGetDeviceInfo(CL_DEVICE_PLATFORM)");
    CLSCAN__FORWARD_CL(ctx, clGetDeviceInfo(d, CL_DEVICE_VENDOR_ID, sizeof p->vendor_id,
                                           &p->vendor_id, NULL),
                      "clGetDeviceInfo(CL_DEVICE_VENDOR_ID)");
    /* Each name and version is asked once, in full: the identity keeps it whole, the
     * profile's fields what fits. Only the device name must answer. */
    enum { PLATFORM_NAME, PLATFORM_VERSION, DEVICE_NAME, VENDOR, DEVICE_VERSION, DRIVER, C_VERSION,
           TEXTS };
    static const struct {
        bool is_device;
        cl_uint what;
    } queries[TEXTS] = {
        {false, CL_PLATFORM_NAME}, {false, CL_PLATFORM_VERSION}, {true, CL_DEVICE_NAME},
        {true, CL_DEVICE_VENDOR},  {true, CL_DEVICE_VERSION},    {true, CL_DRIVER_VERSION},
        {true, CL_DEVICE_OPENCL_C_VERSION},
    };
    char *texts[TEXTS];
    cl_int name_err = CL_SUCCESS;
    for (int i = 0; i < TEXTS; ++i) {
        cl_int err;
        void *obj = queries[i].is_device ? (void *)d : (void *)platform;
        texts[i] = info_text(queries[i].is_device, obj, queries[i].what, &err);
        if (i == DEVICE_NAME) name_err = err;
    }
    copy_trimmed(p->platform_name, sizeof p->platform_name, texts[PLATFORM_NAME]);
    copy_trimmed(p->device_name, sizeof p->device_name, texts[DEVICE_NAME]);
    copy_trimmed(p->vendor_name, sizeof p->vendor_name, texts[VENDOR]);
    copy_trimmed(p->driver_version, sizeof p->driver_version, texts[DRIVER]);
    copy_trimmed(p->device_version, sizeof p->device_version, texts[DEVICE_VERSION]);
    copy_trimmed(p->c_version, sizeof p->c_version, texts[C_VERSION]);
    bool complete = true;
    for (int i = 0; i < DRIVER + 1; ++i) complete &= texts[i] != NULL;
    if (complete) {
        const char *fmt = "platform: %s; %s\ndevice: %s; vendor %s (0x%x); %s\ndriver: %s\n";
        int len = snprintf(NULL, 0, fmt, texts[PLATFORM_NAME], texts[PLATFORM_VERSION],
                           texts[DEVICE_NAME], texts[VENDOR], p->vendor_id, texts[DEVICE_VERSION],
                           texts[DRIVER]);
        if (len > 0 && (p->identity = malloc((size_t)len + 1)) != NULL)
            snprintf(p->identity, (size_t)len + 1, fmt, texts[PLATFORM_NAME],
                     texts[PLATFORM_VERSION], texts[DEVICE_NAME], texts[VENDOR], p->vendor_id,
                     texts[DEVICE_VERSION], texts[DRIVER]);
    }
    for (int i = 0; i < TEXTS; ++i) free(texts[i]);
    if (name_err != CL_SUCCESS) {
        clscan__profile_free(p);
        return clscan__fail_cl(ctx, name_err, "clGetDeviceInfo(CL_DEVICE_NAME)");
    }

    size_t ext_len = 0;
    cl_int err = clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, 0, NULL, &ext_len);
    if (err == CL_SUCCESS && !(p->extensions = calloc(ext_len + 1, 1))) {
        clscan__profile_free(p);
        return clscan__fail(ctx, CLSCAN_ERROR_OUT_OF_RESOURCES, "out of host memory");
    }
    if (err == CL_SUCCESS)
        err = clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, ext_len, p->extensions, NULL);
    clscan_status s = CLSCAN_SUCCESS;
#define QUERY(what, field)                                                            \
    if (err == CL_SUCCESS) {                                                          \
        err = clGetDeviceInfo(d, what, sizeof(field), &(field), NULL);                \
        if (err != CL_SUCCESS) s = clscan__fail_cl(ctx, err, "clGetDeviceInfo(" #what ")"); \
    }
    if (err != CL_SUCCESS) s = clscan__fail_cl(ctx, err, "clGetDeviceInfo(CL_DEVICE_EXTENSIONS)");
    cl_device_local_mem_type mem_type = CL_LOCAL;
    cl_device_fp_config fp64_config = 0;
    QUERY(CL_DEVICE_TYPE, p->device_type);
    QUERY(CL_DEVICE_LOCAL_MEM_SIZE, p->local_mem_size);
    QUERY(CL_DEVICE_LOCAL_MEM_TYPE, mem_type);
    QUERY(CL_DEVICE_MAX_WORK_GROUP_SIZE, p->max_wg_size);
    QUERY(CL_DEVICE_MAX_COMPUTE_UNITS, p->compute_units);
    QUERY(CL_DEVICE_MAX_MEM_ALLOC_SIZE, p->max_alloc);
#undef QUERY
    if (s != CLSCAN_SUCCESS) {
        clscan__profile_free(p);
        return s;
    }
    /* Optional queries: absence is not an error. */
    /* The cache the sort plans for (src/algo/sort.c): at least 32 MiB, a last-level
     * cache CPUs commonly have (Intel's CPU runtime reports its 1 MiB L2 where PoCL reports
     * the 32 MiB L3 of the same machine); CLSCAN_GLOBAL_MEM_CACHE_SIZE replaces it. */
    if (clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof p->global_cache_size,
                        &p->global_cache_size, NULL) != CL_SUCCESS)
        p->global_cache_size = 0;
    if (p->global_cache_size < ((cl_ulong)32 << 20)) p->global_cache_size = (cl_ulong)32 << 20;
    if (clGetDeviceInfo(d, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64_config, &fp64_config,
                        NULL) != CL_SUCCESS)
        fp64_config = 0;
    p->local_mem_is_global = mem_type == CL_GLOBAL;
    p->vendor = clscan__vendor_normalise(p->vendor_id, p->vendor_name);
    if (!clscan__parse_version(p->device_version, "OpenCL ", &p->cl_major, &p->cl_minor)) {
        p->cl_major = 1;
        p->cl_minor = 2;
    }
    if (!clscan__parse_version(p->c_version, "OpenCL C ", &p->c_major, &p->c_minor)) {
        p->c_major = 1;
        p->c_minor = 2;
    }
    s = probe_features(d, p);
    if (s != CLSCAN_SUCCESS) {
        clscan__profile_free(p);
        return clscan__fail(ctx, s, "out of host memory");
    }
    if (p->cl_major >= 3 &&
        clGetDeviceInfo(d, CLSCAN_DEVICE_PREFERRED_WG_SIZE_MULTIPLE, sizeof p->wg_multiple,
                        &p->wg_multiple, NULL) != CL_SUCCESS)
        p->wg_multiple = 0;
    p->fp64 = fp64_config != 0 || clscan__has_token(p->extensions, "cl_khr_fp64") ||
              (p->features & CLSCAN__FEAT_FP64);
    p->int64_atomics = clscan__has_token(p->extensions, "cl_khr_int64_base_atomics");
    probe_subgroup_width(d, p);
    p->nvidia_platform = strstr(p->platform_name, "NVIDIA") != NULL;
    /* Mesa's llvmpipe (under rusticl or clover) ends a work-item silently once its loops
     * have run 65535 iterations in all; docs/DEVICES.md has the reproducer. */
    if (strstr(p->device_name, "llvmpipe")) p->max_loop_iterations = 65535;
    /* The CPU runtimes known to compile clang's __builtin_prefetch: PoCL and Intel's.
     * Mesa's rusticl goes through a SPIR-V translator that has no prefetch and aborted
     * the process (docs/IMPLEMENTATION-ISSUES.md); others are not assumed to. */
    p->prefetch_builtin = (p->device_type & CL_DEVICE_TYPE_CPU) &&
                          (strstr(p->platform_name, "Portable Computing Language") ||
                           p->vendor == CLSCAN__VENDOR_INTEL);

    return CLSCAN_SUCCESS;
}

void clscan__profile_free(clscan__profile *p)
{
    free(p->extensions);
    free(p->identity);
    p->extensions = p->identity = NULL;
}

/* test_units.c - Check tests of the library's host-side internals: extension matching,
 * version and size parsing, vendor normalisation, the device tables and CLSCAN_*
 * overrides, the generated kernel options (cache keys), status names, last-error
 * bookkeeping, and that every cl/ file compiles on its own. */
/* SPDX-License-Identifier: MIT */
#include "algo/algo.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- parsing ---- */

START_TEST(test_has_token)
{
    const char *list = "cl_khr_fp64 cl_khr_int64_base_atomics  cl_nv_device_attribute_query";
    ck_assert(clscan__has_token(list, "cl_khr_fp64"));
    ck_assert(clscan__has_token(list, "cl_khr_int64_base_atomics"));
    ck_assert(clscan__has_token(list, "cl_nv_device_attribute_query"));
    ck_assert(!clscan__has_token(list, "cl_khr_fp"));          /* prefix of a token */
    ck_assert(!clscan__has_token(list, "khr_fp64"));           /* suffix of a token */
    ck_assert(!clscan__has_token(list, "cl_khr_int64"));       /* inside a token */
    ck_assert(!clscan__has_token("cl_khr_fp64_x cl_khr_fp16", "cl_khr_fp64"));
    ck_assert(clscan__has_token("cl_khr_fp64_x cl_khr_fp64", "cl_khr_fp64"));
    ck_assert(clscan__has_token("a\tb", "b"));
    ck_assert(!clscan__has_token("", "cl_khr_fp64"));
    ck_assert(!clscan__has_token(NULL, "cl_khr_fp64"));
    ck_assert(!clscan__has_token(list, ""));
}
END_TEST

/* Texts that could make the preprocessor read a file are found, however spelled; others
 * are not. */
START_TEST(test_text_reads_files)
{
    static const char *const reads[] = {
        "x > 0\n#include \"/tmp/p.h\"\n", "#  include <stdio.h>", "%:include \"a\"",
        "#inc\\\nlude \"a\"", "#inc\\\r\nlude \"a\"", "#incl?\?/\nude \"a\"",
        "#/* c */include \"a\"", "#include_next <a>", "#import \"a\"", "#embed \"a\"",
        "#if __has_include(\"a\")\n#endif\n", "#if __has_embed(\"a\")\n#endif\n",
        "#define include 1\n", /* (conservative: the word with a directive sign) */
    };
    static const char *const clean[] = {
        "x > 0", "include > 0", /* (no directive sign: a name) */
        "#define N 4\nint f(int x) { return x * N; }", "#pragma unroll\n",
        "#define included_count 3\n", "#define INCLUDE 1\n", "#define embedded 2\n",
    };
    for (size_t k = 0; k < sizeof reads / sizeof *reads; ++k)
        ck_assert_msg(clscan__text_reads_files(reads[k]) != NULL, "not found in: %s", reads[k]);
    for (size_t k = 0; k < sizeof clean / sizeof *clean; ++k)
        ck_assert_msg(clscan__text_reads_files(clean[k]) == NULL, "found in: %s", clean[k]);
    ck_assert(clscan__text_reads_files(NULL) == NULL);
}
END_TEST

START_TEST(test_parse_version)
{
    int ma = 0, mi = 0;
    ck_assert(clscan__parse_version("OpenCL 3.0 CUDA", "OpenCL ", &ma, &mi));
    ck_assert_int_eq(ma, 3);
    ck_assert_int_eq(mi, 0);
    ck_assert(clscan__parse_version("OpenCL C 1.2 PoCL", "OpenCL C ", &ma, &mi));
    ck_assert_int_eq(ma, 1);
    ck_assert_int_eq(mi, 2);
    ck_assert(clscan__parse_version("OpenCL 2.1 AMD-APP (3380.6)", "OpenCL ", &ma, &mi));
    ck_assert_int_eq(ma, 2);
    ck_assert_int_eq(mi, 1);
    ck_assert(!clscan__parse_version("OpenCL C 1.2", "OpenCL ", &ma, &mi)); /* "C" */
    ck_assert(!clscan__parse_version("CUDA 12.0", "OpenCL ", &ma, &mi));
    ck_assert(!clscan__parse_version("OpenCL x.y", "OpenCL ", &ma, &mi));
    ck_assert(!clscan__parse_version(NULL, "OpenCL ", &ma, &mi));
}
END_TEST

START_TEST(test_parse_size)
{
    unsigned long long v = 0;
    ck_assert(clscan__parse_size("64", &v) && v == 64);
    ck_assert(clscan__parse_size("64K", &v) && v == 65536);
    ck_assert(clscan__parse_size("48k", &v) && v == 49152);
    ck_assert(clscan__parse_size("2M", &v) && v == 2u << 20);
    ck_assert(clscan__parse_size("1G", &v) && v == 1ull << 30);
    ck_assert(clscan__parse_size("0x20", &v) && v == 32);
    ck_assert(!clscan__parse_size("", &v));
    ck_assert(!clscan__parse_size("-1", &v));
    ck_assert(!clscan__parse_size("12Q", &v));
    ck_assert(!clscan__parse_size("12KB", &v));
    ck_assert(!clscan__parse_size("abc", &v));
    ck_assert(!clscan__parse_size("99999999999999999999", &v));
    ck_assert(!clscan__parse_size("17179869184G", &v)); /* 2^34 G overflows */
}
END_TEST

START_TEST(test_vendor_normalise)
{
    ck_assert_int_eq(clscan__vendor_normalise(0x10DE, "NVIDIA Corporation"), CLSCAN__VENDOR_NVIDIA);
    ck_assert_int_eq(clscan__vendor_normalise(0, "Advanced Micro Devices, Inc."),
                     CLSCAN__VENDOR_AMD);
    ck_assert_int_eq(clscan__vendor_normalise(0, "Intel(R) Corporation"), CLSCAN__VENDOR_INTEL);
    ck_assert_int_eq(clscan__vendor_normalise(0x10DE, "unknown"), CLSCAN__VENDOR_NVIDIA);
    ck_assert_int_eq(clscan__vendor_normalise(0x1002, NULL), CLSCAN__VENDOR_AMD);
    ck_assert_int_eq(clscan__vendor_normalise(0x13B5, "ARM"), CLSCAN__VENDOR_ARM);
    ck_assert_int_eq(clscan__vendor_normalise(0x5143, "QUALCOMM"), CLSCAN__VENDOR_QUALCOMM);
    ck_assert_int_eq(clscan__vendor_normalise(0x1234, "Mesa"), CLSCAN__VENDOR_OTHER);
    /* PoCL on an AMD CPU: Intel's PCI id, AMD's name. The name wins. */
    ck_assert_int_eq(clscan__vendor_normalise(0x8086, "AuthenticAMD"), CLSCAN__VENDOR_AMD);
    ck_assert_str_eq(clscan__vendor_name(CLSCAN__VENDOR_NVIDIA), "nvidia");
    ck_assert_str_eq(clscan__vendor_name(CLSCAN__VENDOR_OTHER), "other");
}
END_TEST

/* ------------------------------------------------------------- profile ---- */

/* A fake environment: pairs of name, value, ending with NULL. */
static const char *table_getenv(const char *name, void *user)
{
    const char *const *kv = user;
    for (; kv && kv[0]; kv += 2)
        if (strcmp(kv[0], name) == 0) return kv[1];
    return NULL;
}

/* The device facts of an H100 as NVIDIA's driver reports them. */
static void fake_h100(clscan__profile *p)
{
    memset(p, 0, sizeof *p);
    strcpy(p->device_name, "NVIDIA H100 80GB HBM3");
    p->extensions = strdup("cl_khr_fp64 cl_khr_int64_base_atomics cl_nv_device_attribute_query");
    p->vendor = CLSCAN__VENDOR_NVIDIA;
    p->device_type = CL_DEVICE_TYPE_GPU;
    p->cl_major = 3;
    p->c_major = 1;
    p->c_minor = 2;
    p->local_mem_size = 48 * 1024;
    p->max_wg_size = 1024;
    p->compute_units = 132;
    p->subgroup_width = 32;
    p->subgroup_queried = 1;
    p->nvidia_platform = 1;
    p->fp64 = 1;
    p->int64_atomics = 1;
}

/* PoCL on a CPU: local memory is global memory. */
static void fake_cpu(clscan__profile *p)
{
    memset(p, 0, sizeof *p);
    strcpy(p->device_name, "cpu");
    p->extensions = strdup("cl_khr_fp64");
    p->vendor = CLSCAN__VENDOR_AMD;
    p->device_type = CL_DEVICE_TYPE_CPU;
    p->local_mem_size = 1 << 20;
    p->local_mem_is_global = 1;
    p->max_wg_size = 4096;
    p->compute_units = 2;
    p->fp64 = 1;
}

START_TEST(test_profile_tables)
{
    clscan__profile p;
    fake_h100(&p);
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, NULL), CLSCAN_SUCCESS);
    ck_assert_uint_eq(p.local_banks, 32);
    ck_assert_uint_eq(p.bank_width, 4);
    ck_assert_uint_eq(p.wg_size, 256);
    ck_assert(p.padding);
    ck_assert(strstr(p.tuning_source, "NVIDIA") != NULL);
    clscan__profile_free(&p);

    fake_cpu(&p);
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, NULL), CLSCAN_SUCCESS);
    ck_assert_uint_eq(p.local_banks, 0); /* global local memory: nothing to pad against */
    ck_assert(strstr(p.tuning_source, "CPU") != NULL);
    clscan__profile_free(&p);
}
END_TEST

START_TEST(test_profile_emulate_amd)
{
    /* The CPU device made to look like an AMD GPU, as CI does. */
    const char *env[] = {"CLSCAN_VENDOR", "amd", "CLSCAN_DEVICE_TYPE", "gpu",
                         "CLSCAN_LOCAL_MEM_TYPE", "local", "CLSCAN_LOCAL_MEM_SIZE", "64K",
                         "CLSCAN_SUBGROUP_WIDTH", "64", "CLSCAN_MAX_WORK_GROUP_SIZE", "256",
                         NULL};
    clscan__profile p;
    fake_cpu(&p);
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, (void *)env), CLSCAN_SUCCESS);
    ck_assert_int_eq(p.vendor, CLSCAN__VENDOR_AMD);
    ck_assert_uint_eq(p.local_mem_size, 65536);
    ck_assert(!p.local_mem_is_global);
    ck_assert_uint_eq(p.local_banks, 32);
    ck_assert(strstr(p.banks_source, "AMD") != NULL);
    ck_assert_uint_eq(p.subgroup_width, 64);
    ck_assert_uint_eq(p.wg_size, 256);
    ck_assert(strstr(p.tuning_source, "AMD") != NULL);
    clscan__profile_free(&p);
}
END_TEST

START_TEST(test_profile_overrides)
{
    const char *env[] = {"CLSCAN_LOCAL_MEM_BANKS", "16", "CLSCAN_WORK_GROUP_SIZE", "64",
                         "CLSCAN_ITEMS_PER_THREAD", "4", "CLSCAN_PADDING", "0",
                         "CLSCAN_EXTENSIONS", "cl_khr_byte_addressable_store", NULL};
    clscan__profile p;
    fake_h100(&p);
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, (void *)env), CLSCAN_SUCCESS);
    ck_assert_uint_eq(p.local_banks, 16);
    ck_assert_str_eq(p.banks_source, "CLSCAN_LOCAL_MEM_BANKS");
    ck_assert_uint_eq(p.wg_size, 64);
    ck_assert_uint_eq(p.items_per_thread, 4);
    ck_assert(!p.padding);
    /* A replaced extension list without cl_khr_fp64 takes fp64 away. */
    ck_assert(!p.fp64);
    ck_assert(!p.int64_atomics);
    clscan__profile_free(&p);
}
END_TEST

/* Each bad value fails with CLSCAN_ERROR_INVALID_ENVIRONMENT and names the variable. */
static void expect_bad_env(const char *name, const char *value, const char *mention)
{
    const char *env[] = {name, value, NULL};
    clscan__profile p;
    fake_h100(&p);
    clscan_status s = clscan__profile_finish(NULL, &p, table_getenv, (void *)env);
    ck_assert_msg(s == CLSCAN_ERROR_INVALID_ENVIRONMENT, "%s=%s gave %s", name, value,
                  clscan_status_string(s));
    const char *msg = clscan_context_last_error(NULL);
    ck_assert_msg(strstr(msg, mention) != NULL, "message \"%s\" lacks \"%s\"", msg, mention);
    clscan__profile_free(&p);
}

START_TEST(test_profile_bad_overrides)
{
    expect_bad_env("CLSCAN_WORK_GROUP_SIZE", "abc", "CLSCAN_WORK_GROUP_SIZE");
    expect_bad_env("CLSCAN_WORK_GROUP_SIZE", "100", "power of two");
    expect_bad_env("CLSCAN_WORK_GROUP_SIZE", "2048", "maximum work-group size 1024");
    expect_bad_env("CLSCAN_VENDOR", "acme", "CLSCAN_VENDOR");
    expect_bad_env("CLSCAN_LOCAL_MEM_TYPE", "shared", "local or global");
    expect_bad_env("CLSCAN_ITEMS_PER_THREAD", "0", "CLSCAN_ITEMS_PER_THREAD");
    expect_bad_env("CLSCAN_FP64", "2", "CLSCAN_FP64");
    expect_bad_env("CLSCAN_OPENCL_VERSION", "three", "CLSCAN_OPENCL_VERSION");
}
END_TEST

START_TEST(test_profile_shrinks_to_device)
{
    /* A table default larger than the device allows shrinks silently. */
    const char *env[] = {"CLSCAN_MAX_WORK_GROUP_SIZE", "96", NULL};
    clscan__profile p;
    fake_h100(&p);
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, (void *)env), CLSCAN_SUCCESS);
    ck_assert_uint_eq(p.wg_size, 64);
    clscan__profile_free(&p);
}
END_TEST

START_TEST(test_profile_describe)
{
    clscan__profile p;
    fake_h100(&p);
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, NULL), CLSCAN_SUCCESS);
    char big[4096], small[16];
    size_t need = clscan__profile_describe(&p, big, sizeof big);
    ck_assert_uint_eq(need, strlen(big));
    ck_assert(strstr(big, "NVIDIA H100") && strstr(big, "banks 32 x 4 B"));
    ck_assert(strstr(big, "cl12 atomics (OpenCL 1.2 atomics), ptx for values of word pairs,"));
    ck_assert_uint_eq(clscan__profile_describe(&p, small, sizeof small), need);
    ck_assert_uint_eq(strlen(small), sizeof small - 1);
    ck_assert_uint_eq(clscan__profile_describe(&p, NULL, 0), need);
    clscan__profile_free(&p);
}
END_TEST

/* ------------------------------------------------------- kernel options ---- */

START_TEST(test_scan_defines)
{
    clscan__profile p;
    fake_h100(&p);
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, NULL), CLSCAN_SUCCESS);
    clscan__scan_config c;
    /* The single-pass shape (the default), then the multi-level one. */
    ck_assert_int_eq(p.scan_algo, CLSCAN__SCAN_SINGLE_PASS);
    ck_assert_int_eq(clscan__scan_config_choose(NULL, &p, p.scan_algo, CLSCAN_INT32, CLSCAN_OP_ADD,
                                                &c),
                     CLSCAN_SUCCESS);
    ck_assert_uint_eq(c.wg_size, p.sp_wg_size);
    ck_assert_uint_eq(c.items, p.sp_items);
    char sp[2048];
    ck_assert(clscan__kernel_defines(&c, &p, CLSCAN__DEFINES_BLOCK, sp, sizeof sp) < sizeof sp);
    ck_assert(strstr(sp, "#define CLSCAN_SINGLE_PASS 1\n"));
    ck_assert(strstr(sp, "#define CLSCAN_LB_ATOMICS 0\n")); /* NVIDIA: OpenCL 1.2 atomics */
    ck_assert(strstr(sp, "#define CLSCAN_LB_WORD_BITS 64\n"));
    ck_assert(strstr(sp, "#define CLSCAN_LB_TEST 0\n"));
    /* Values of whole pairs of words take the PTX words on NVIDIA's platform: 8-byte
     * scans, general scans of 8- and 16-byte elements and compactions' 8-byte counts
     * (run-length encoding's); values of one word, or three, keep the 1.2 atomics. */
    ck_assert_int_eq(p.lb_atomics_pair, CLSCAN__LB_PTX);
    clscan__scan_config w;
    ck_assert_int_eq(clscan__scan_config_choose(NULL, &p, p.scan_algo, CLSCAN_DOUBLE, CLSCAN_OP_ADD,
                                                &w),
                     CLSCAN_SUCCESS);
    ck_assert_int_eq(w.lb_atomics, CLSCAN__LB_PTX);
    ck_assert(clscan__kernel_defines(&w, &p, CLSCAN__DEFINES_BLOCK, sp, sizeof sp) < sizeof sp);
    ck_assert(strstr(sp, "#define CLSCAN_LB_ATOMICS 2\n"));
    ck_assert_int_eq(clscan__general_config_choose(NULL, &p, p.scan_algo, CLSCAN__TYPE_ID_CUSTOM, 8,
                                                   0, "", &w),
                     CLSCAN_SUCCESS);
    ck_assert_int_eq(w.lb_atomics, CLSCAN__LB_PTX);
    ck_assert_int_eq(clscan__general_config_choose(NULL, &p, p.scan_algo, CLSCAN__TYPE_ID_CUSTOM, 16,
                                                   0, "", &w),
                     CLSCAN_SUCCESS);
    ck_assert_int_eq(w.lb_atomics, CLSCAN__LB_PTX);
    ck_assert_int_eq(clscan__general_config_choose(NULL, &p, p.scan_algo, CLSCAN__TYPE_ID_CUSTOM, 12,
                                                   0, "", &w),
                     CLSCAN_SUCCESS);
    ck_assert_int_eq(w.lb_atomics, CLSCAN__LB_CL12);
    /* A segmented scan of 4-byte values (8-byte pairs) keeps its values and head bits in
     * the tile, as many elements as a 4-byte scan's; with an output stage (no value
     * bytes given), or one work-item a group, the pairs: half as many. */
    ck_assert_int_eq(clscan__general_config_choose(NULL, &p, p.scan_algo, CLSCAN__TYPE_ID_CUSTOM, 8,
                                                   4, "", &w),
                     CLSCAN_SUCCESS);
    ck_assert_uint_eq(w.value_bytes, 4);
    ck_assert_uint_eq(w.items, p.sp_items);
    ck_assert_uint_le(clscan__scan_local_bytes(&w, &p), p.local_mem_size);
    ck_assert(clscan__kernel_defines(&w, &p, CLSCAN__DEFINES_BLOCK, sp, sizeof sp) < sizeof sp);
    ck_assert(strstr(sp, "#define CLSCAN_GEN_VALUE_TILE 1\n"));
    ck_assert(strstr(sp, "#define CLSCAN_WG_DIRECT 1\n"));
    ck_assert_int_eq(clscan__general_config_choose(NULL, &p, p.scan_algo, CLSCAN__TYPE_ID_CUSTOM, 8,
                                                   0, "", &w),
                     CLSCAN_SUCCESS);
    ck_assert_uint_eq(w.value_bytes, 0);
    ck_assert_uint_eq(w.items, p.sp_items / 2);
    ck_assert(clscan__kernel_defines(&w, &p, CLSCAN__DEFINES_BLOCK, sp, sizeof sp) < sizeof sp);
    ck_assert(!strstr(sp, "CLSCAN_GEN_VALUE_TILE"));
    {
        clscan__profile one = p; /* (a copy of the fields, freed with p) */
        one.sp_wg_size = 1;
        ck_assert_int_eq(clscan__general_config_choose(NULL, &one, one.scan_algo,
                                                       CLSCAN__TYPE_ID_CUSTOM, 8, 4, "", &w),
                         CLSCAN_SUCCESS);
        ck_assert_uint_eq(w.wg_size, 1);
        ck_assert_uint_eq(w.value_bytes, 0);
    }
    ck_assert_int_eq(clscan__select_config_choose(NULL, &p, p.scan_algo, CLSCAN__SELECT_IF,
                                                  CLSCAN_INT32, CLSCAN_UINT32, "x > 0", &w),
                     CLSCAN_SUCCESS);
    ck_assert_int_eq(w.lb_atomics, CLSCAN__LB_CL12);
    ck_assert_int_eq(clscan__select_config_choose(NULL, &p, p.scan_algo, CLSCAN__SELECT_IF,
                                                  CLSCAN_INT32, CLSCAN_UINT64, "x > 0", &w),
                     CLSCAN_SUCCESS);
    ck_assert_int_eq(w.lb_atomics, CLSCAN__LB_PTX);
    ck_assert_int_eq(clscan__select_config_choose(NULL, &p, p.scan_algo, CLSCAN__SELECT_RUNS,
                                                  CLSCAN_INT64, CLSCAN_UINT64, NULL, &w),
                     CLSCAN_SUCCESS);
    ck_assert_int_eq(w.lb_atomics, CLSCAN__LB_PTX);
    ck_assert(clscan__kernel_defines(&w, &p, CLSCAN__DEFINES_BLOCK, sp, sizeof sp) < sizeof sp);
    ck_assert(strstr(sp, "#define CLSCAN_LB_ATOMICS 2\n"));
    ck_assert(strstr(sp, "#define CLSCAN_SEL_STASH 1\n")); /* (8-byte elements: below) */
    /* Compactions ranked by warps' ballots keep their elements in local memory between
     * the phases (counted in the local bytes, which still fit, on small local memories
     * too) but for run-length encoding of 4-byte elements (which shuffles them in
     * registers); of 8-byte elements it stashes them as well. */
    for (int e = 0; e < 4; ++e) {
        clscan__profile q = p; /* (a copy of the fields, freed with p) */
        if (e >= 2) q.local_mem_size = 4096;
        const clscan_type et = e % 2 ? CLSCAN_DOUBLE : CLSCAN_INT32;
        ck_assert_int_eq(clscan__select_config_choose(NULL, &q, q.scan_algo,
                                                      CLSCAN__SELECT_FLAGGED, et, CLSCAN_UINT32,
                                                      NULL, &w),
                         CLSCAN_SUCCESS);
        ck_assert_uint_eq(w.sel_stash, 1);
        ck_assert_uint_ge(clscan__scan_local_bytes(&w, &q),
                          (size_t)w.wg_size * w.items * clscan_type_size(et));
        ck_assert_uint_le(clscan__scan_local_bytes(&w, &q), q.local_mem_size - 256);
        ck_assert(clscan__kernel_defines(&w, &q, CLSCAN__DEFINES_BLOCK, sp, sizeof sp) <
                  sizeof sp);
        ck_assert(strstr(sp, "#define CLSCAN_SEL_STASH 1\n"));
    }
    ck_assert_int_eq(clscan__select_config_choose(NULL, &p, p.scan_algo, CLSCAN__SELECT_UNIQUE,
                                                  CLSCAN_INT32, CLSCAN_UINT32, NULL, &w),
                     CLSCAN_SUCCESS);
    ck_assert_uint_eq(w.sel_stash, 1);
    ck_assert_int_eq(clscan__select_config_choose(NULL, &p, p.scan_algo, CLSCAN__SELECT_RUNS,
                                                  CLSCAN_INT32, CLSCAN_UINT64, NULL, &w),
                     CLSCAN_SUCCESS);
    ck_assert_uint_eq(w.sel_stash, 0);
    ck_assert_int_eq(clscan__select_config_choose(NULL, &p, p.scan_algo, CLSCAN__SELECT_RUNS,
                                                  CLSCAN_FLOAT, CLSCAN_UINT64, NULL, &w),
                     CLSCAN_SUCCESS);
    ck_assert_uint_eq(w.sel_stash, 0);
    ck_assert_int_eq(clscan__select_config_choose(NULL, &p, p.scan_algo, CLSCAN__SELECT_UNIQUE,
                                                  CLSCAN_UINT64, CLSCAN_UINT32, NULL, &w),
                     CLSCAN_SUCCESS);
    ck_assert_uint_eq(w.sel_stash, 1);
    /* A forced mode holds for every value. */
    {
        const char *env[] = {"CLSCAN_LOOKBACK_ATOMICS", "cl12", NULL};
        clscan__profile q;
        fake_h100(&q);
        ck_assert_int_eq(clscan__profile_finish(NULL, &q, table_getenv, (void *)env),
                         CLSCAN_SUCCESS);
        ck_assert_int_eq(q.lb_atomics_pair, CLSCAN__LB_CL12);
        ck_assert_int_eq(clscan__scan_config_choose(NULL, &q, q.scan_algo, CLSCAN_INT64,
                                                    CLSCAN_OP_ADD, &w),
                         CLSCAN_SUCCESS);
        ck_assert_int_eq(w.lb_atomics, CLSCAN__LB_CL12);
        clscan__profile_free(&q);
    }
    p.scan_algo = CLSCAN__SCAN_MULTI_LEVEL;
    ck_assert_int_eq(clscan__scan_config_choose(NULL, &p, p.scan_algo, CLSCAN_INT32, CLSCAN_OP_ADD,
                                                &c),
                     CLSCAN_SUCCESS);
    ck_assert_uint_eq(c.wg_size, 256);
    ck_assert_uint_eq(c.items, 8);
    ck_assert_uint_eq(c.log_banks, 5);
    /* 8-byte elements cover two banks each: a row of 32 banks holds 16 of them. */
    clscan__scan_config c8;
    ck_assert_int_eq(clscan__scan_config_choose(NULL, &p, p.scan_algo, CLSCAN_INT64, CLSCAN_OP_ADD,
                                                &c8),
                     CLSCAN_SUCCESS);
    ck_assert_uint_eq(c8.log_banks, 4);
    ck_assert_int_eq(c8.lb_atomics, CLSCAN__LB_CL12); /* (multi-level: no look-back) */
    ck_assert_uint_eq(clscan__pad_shift(&p, 4), 5);
    ck_assert_uint_eq(clscan__pad_shift(&p, 16), 3);
    ck_assert_uint_eq(clscan__pad_shift(&p, 12), 5); /* (not a power of two: the row's) */
    ck_assert_uint_eq(clscan__pad_shift(&p, 1024), 1);
    p.padding = 0;
    ck_assert_uint_eq(clscan__pad_shift(&p, 8), 0);
    p.padding = 1;
    char a[2048], b[2048];
    ck_assert(clscan__kernel_defines(&c, &p, CLSCAN__DEFINES_BLOCK, a, sizeof a) < sizeof a);
    ck_assert(strstr(a, "#define CLSCAN_TYPE_ID 0\n"));
    ck_assert(strstr(a, "#define CLSCAN_OP_ID 0\n"));
    ck_assert(strstr(a, "#define CLSCAN_WG_SIZE 256\n"));
    ck_assert(strstr(a, "#define CLSCAN_ITEMS 8\n"));
    ck_assert(strstr(a, "#define CLSCAN_LOG_BANKS 5\n"));
    ck_assert(strstr(a, "#define CLSCAN_SINGLE_PASS 0\n"));
    ck_assert(!strstr(a, "CLSCAN_LB_")); /* look-back knobs only in single-pass programs */
    ck_assert(strstr(a, "#define CLSCAN_SG_IMPL 2\n"));
    ck_assert(strstr(a, "#define CLSCAN_SG_WIDTH 32\n"));
    ck_assert(strstr(a, "#define CLSCAN_WG_ALGO 1\n"));
    /* The same values as build options, plain -D NAME=NUMBER (no quoting needed). */
    size_t need = clscan__kernel_defines(&c, &p, CLSCAN__DEFINES_OPTIONS, b, sizeof b);
    ck_assert_uint_eq(need, strlen(b));
    ck_assert(strncmp(b, "-cl-std=CL1.2 ", 14) == 0);
    ck_assert(strstr(b, " -D CLSCAN_WG_SIZE=256"));
    ck_assert(strstr(b, " -D CLSCAN_SG_IMPL=2"));
    ck_assert(!strchr(b, '\n') && !strchr(b, '"') && !strchr(b, '('));
    /* Too small a buffer: truncated, terminated, and the length needed returned. */
    char small[16];
    ck_assert_uint_eq(clscan__kernel_defines(&c, &p, CLSCAN__DEFINES_OPTIONS, small, sizeof small), need);
    ck_assert_uint_eq(strlen(small), sizeof small - 1);

    /* Every (type, op) pair gets its own text, so its own cache entry. */
    for (int t = 0; t < CLSCAN_TYPE_COUNT; ++t)
        for (int o = 0; o < CLSCAN_OP_COUNT; ++o)
            for (int t2 = 0; t2 < CLSCAN_TYPE_COUNT; ++t2)
                for (int o2 = 0; o2 < CLSCAN_OP_COUNT; ++o2) {
                    if (t == t2 && o == o2) continue;
                    clscan__scan_config c1 = c, c2 = c;
                    c1.type = (clscan_type)t;
                    c1.op = (clscan_op)o;
                    c2.type = (clscan_type)t2;
                    c2.op = (clscan_op)o2;
                    clscan__kernel_defines(&c1, &p, CLSCAN__DEFINES_BLOCK, a, sizeof a);
                    clscan__kernel_defines(&c2, &p, CLSCAN__DEFINES_BLOCK, b, sizeof b);
                    ck_assert_str_ne(a, b);
                }
    /* So do the two work-group scans. */
    clscan__scan_config c3 = c;
    c3.wg_algo = CLSCAN__WG_BLELLOCH;
    clscan__kernel_defines(&c, &p, CLSCAN__DEFINES_BLOCK, a, sizeof a);
    clscan__kernel_defines(&c3, &p, CLSCAN__DEFINES_BLOCK, b, sizeof b);
    ck_assert_str_ne(a, b);
    clscan__profile_free(&p);
}
END_TEST

/* A bank probe result replaces the vendor table; an explicit override beats both, and
 * memory that is global memory has no banks whatever the probe said. */
START_TEST(test_bank_probe_applied)
{
    clscan__profile p;
    fake_h100(&p);
    p.bank_probe_ran = 1;
    p.bank_probe.measured = 1;
    p.bank_probe.banks = 16;
    p.bank_probe.width = 8;
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, NULL), CLSCAN_SUCCESS);
    ck_assert_uint_eq(p.local_banks, 16);
    ck_assert_uint_eq(p.bank_width, 8);
    ck_assert(strstr(p.banks_source, "measured"));
    const char *env[] = {"CLSCAN_LOCAL_MEM_BANKS", "64", NULL};
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, env), CLSCAN_SUCCESS);
    ck_assert_uint_eq(p.local_banks, 64);
    p.bank_probe.measured = 0; /* no pattern: the table */
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, NULL), CLSCAN_SUCCESS);
    ck_assert_uint_eq(p.local_banks, 32);
    ck_assert(strstr(p.banks_source, "table"));
    p.bank_probe.measured = 1;
    p.local_mem_is_global = 1;
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, NULL), CLSCAN_SUCCESS);
    ck_assert_uint_eq(p.local_banks, 0);
    clscan__profile_free(&p);
}
END_TEST

/* Which sub-group implementation and work-group scan each kind of device gets. */
/* The device-wide scan and the look-back's atomics: defaults, overrides, refusals. */
START_TEST(test_device_scan_choice)
{
    clscan__profile p;
    fake_cpu(&p); /* PoCL-like: OpenCL 3.0 with device-scope acquire/release */
    p.cl_major = 3;
    p.features = CLSCAN__FEAT_ATOMIC_ACQ_REL | CLSCAN__FEAT_ATOMIC_SCOPE_DEVICE;
    p.int64_atomics = 1;
    free(p.extensions);
    p.extensions = strdup("cl_khr_int64_base_atomics cl_khr_int64_extended_atomics");
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, NULL), CLSCAN_SUCCESS);
    ck_assert_int_eq(p.scan_algo, CLSCAN__SCAN_SINGLE_PASS);
    ck_assert_int_eq(p.lb_atomics, CLSCAN__LB_C11);
    ck_assert_uint_eq(p.lb_word_bits, 64);
    ck_assert_int_eq(p.lb_test, 0);
    clscan__scan_config c;
    ck_assert_int_eq(clscan__scan_config_choose(NULL, &p, p.scan_algo, CLSCAN_INT32, CLSCAN_OP_ADD,
                                                &c),
                     CLSCAN_SUCCESS);
    char d[2048];
    ck_assert(clscan__kernel_defines(&c, &p, CLSCAN__DEFINES_BLOCK, d, sizeof d) < sizeof d);
    ck_assert(strstr(d, "built with -cl-std=CL3.0"));
    ck_assert(strstr(d, "#define CLSCAN_LB_ATOMICS 1\n"));
    /* Without 64-bit atomics: 32-bit words (16-bit value halves). */
    const char *no64[] = {"CLSCAN_INT64_ATOMICS", "0", NULL};
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, no64), CLSCAN_SUCCESS);
    ck_assert_uint_eq(p.lb_word_bits, 32);
    /* Overrides. */
    const char *forced[] = {"CLSCAN_SCAN_ALGO", "multi-level", "CLSCAN_LOOKBACK_ATOMICS",
                            "cl12", "CLSCAN_LOOKBACK_SPINS", "0", "CLSCAN_LOOKBACK_TEST",
                            "silent", NULL};
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, forced), CLSCAN_SUCCESS);
    ck_assert_int_eq(p.scan_algo, CLSCAN__SCAN_MULTI_LEVEL);
    ck_assert_int_eq(p.lb_atomics, CLSCAN__LB_CL12);
    ck_assert_uint_eq(p.lb_spins, 0);
    ck_assert_int_eq(p.lb_test, 2);
    ck_assert_str_eq(p.scan_algo_source, "CLSCAN_SCAN_ALGO");
    /* Refusals, with a message naming the choices or the reason. */
    const char *bad_algo[] = {"CLSCAN_SCAN_ALGO", "one-pass", NULL};
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, bad_algo),
                     CLSCAN_ERROR_INVALID_ENVIRONMENT);
    ck_assert(strstr(clscan_context_last_error(NULL), "multi-level or single-pass"));
    const char *ptx[] = {"CLSCAN_LOOKBACK_ATOMICS", "ptx", NULL};
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, ptx),
                     CLSCAN_ERROR_INVALID_ENVIRONMENT);
    ck_assert(strstr(clscan_context_last_error(NULL), "not NVIDIA's"));
    const char *bad_wg[] = {"CLSCAN_SP_WORK_GROUP_SIZE", "96", NULL};
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, bad_wg),
                     CLSCAN_ERROR_INVALID_ENVIRONMENT);
    clscan__profile_free(&p);
    /* An OpenCL 1.2 device gets 1.2 atomics; a forced C11 mode is refused. */
    fake_cpu(&p);
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, NULL), CLSCAN_SUCCESS);
    ck_assert_int_eq(p.lb_atomics, CLSCAN__LB_CL12);
    ck_assert_uint_eq(p.lb_word_bits, 32); /* fake_cpu has no 64-bit atomics */
    const char *c11[] = {"CLSCAN_LOOKBACK_ATOMICS", "c11", NULL};
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, c11),
                     CLSCAN_ERROR_INVALID_ENVIRONMENT);
    /* Loop-limited devices (llvmpipe) default to the multi-level scan. */
    const char *limited[] = {"CLSCAN_MAX_LOOP_ITERATIONS", "65535", NULL};
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, limited), CLSCAN_SUCCESS);
    ck_assert_int_eq(p.scan_algo, CLSCAN__SCAN_MULTI_LEVEL);
    clscan__profile_free(&p);
}
END_TEST

/* NVIDIA's plain single-pass scans of integers: sub-group 0 walks the look-back under
 * the profile's register cap (kernels/config.c, plain_scan_walk); floats take the cap
 * and keep their own walk; compactions, general scans, the multi-level scan, other
 * devices and a forced walk take neither. */
START_TEST(test_plain_scan_walk)
{
    clscan__profile p;
    fake_h100(&p);
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, NULL), CLSCAN_SUCCESS);
    ck_assert_int_eq(p.lb_walk, CLSCAN__LB_WALK_AUTO);
    clscan__scan_config c;
    char d[2048];
    const clscan_type ints[4] = {CLSCAN_INT32, CLSCAN_UINT32, CLSCAN_INT64, CLSCAN_UINT64};
    for (int t = 0; t < 4; ++t) {
        ck_assert_int_eq(clscan__scan_config_choose(NULL, &p, CLSCAN__SCAN_SINGLE_PASS, ints[t],
                                                    CLSCAN_OP_MAX, &c),
                         CLSCAN_SUCCESS);
        ck_assert_int_eq(c.lb_walk, CLSCAN__LB_WALK_SUBGROUP);
        ck_assert_uint_eq(c.ptx_maxnreg, clscan_type_size(ints[t]) == 8 ? 40 : 48);
        ck_assert(clscan__kernel_defines(&c, &p, CLSCAN__DEFINES_BLOCK, d, sizeof d) < sizeof d);
        ck_assert(strstr(d, "#define CLSCAN_LB_WALK 2\n"));
    }
    const clscan_type floats[2] = {CLSCAN_FLOAT, CLSCAN_DOUBLE};
    for (int t = 0; t < 2; ++t) {
        ck_assert_int_eq(clscan__scan_config_choose(NULL, &p, CLSCAN__SCAN_SINGLE_PASS,
                                                    floats[t], CLSCAN_OP_ADD, &c),
                         CLSCAN_SUCCESS);
        ck_assert_int_eq(c.lb_walk, CLSCAN__LB_WALK_AUTO);
        ck_assert_uint_eq(c.ptx_maxnreg, t == 1 ? 40 : 48);
    }
    ck_assert_int_eq(clscan__scan_config_choose(NULL, &p, CLSCAN__SCAN_MULTI_LEVEL, CLSCAN_INT32,
                                                CLSCAN_OP_ADD, &c),
                     CLSCAN_SUCCESS);
    ck_assert(c.lb_walk == CLSCAN__LB_WALK_AUTO && c.ptx_maxnreg == 0);
    ck_assert(clscan__kernel_defines(&c, &p, CLSCAN__DEFINES_BLOCK, d, sizeof d) < sizeof d);
    ck_assert(!strstr(d, "CLSCAN_LB_WALK") && !strstr(d, "CLSCAN_PTX_MAXNREG"));
    ck_assert_int_eq(clscan__select_config_choose(NULL, &p, CLSCAN__SCAN_SINGLE_PASS,
                                                  CLSCAN__SELECT_IF, CLSCAN_INT32, CLSCAN_UINT32,
                                                  "x > 0", &c),
                     CLSCAN_SUCCESS);
    ck_assert(c.lb_walk == CLSCAN__LB_WALK_AUTO); /* (its cap: test_compaction_register_cap) */
    ck_assert_int_eq(clscan__general_config_choose(NULL, &p, CLSCAN__SCAN_SINGLE_PASS,
                                                   CLSCAN__TYPE_ID_CUSTOM, 8, 0, "", &c),
                     CLSCAN_SUCCESS);
    ck_assert(c.lb_walk == CLSCAN__LB_WALK_AUTO && c.ptx_maxnreg == 0);
    /* A forced walk is kept, uncapped, by every program; junk is refused. */
    const char *group[] = {"CLSCAN_LOOKBACK_WALK", "group", NULL};
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, group), CLSCAN_SUCCESS);
    ck_assert_int_eq(clscan__scan_config_choose(NULL, &p, CLSCAN__SCAN_SINGLE_PASS, CLSCAN_INT32,
                                                CLSCAN_OP_ADD, &c),
                     CLSCAN_SUCCESS);
    ck_assert(c.lb_walk == CLSCAN__LB_WALK_GROUP && c.ptx_maxnreg == 0);
    ck_assert(clscan__kernel_defines(&c, &p, CLSCAN__DEFINES_BLOCK, d, sizeof d) < sizeof d);
    ck_assert(strstr(d, "#define CLSCAN_LB_WALK 1\n"));
    ck_assert_int_eq(clscan__scan_config_choose(NULL, &p, CLSCAN__SCAN_SINGLE_PASS, CLSCAN_FLOAT,
                                                CLSCAN_OP_ADD, &c),
                     CLSCAN_SUCCESS);
    ck_assert(c.lb_walk == CLSCAN__LB_WALK_GROUP && c.ptx_maxnreg == 0);
    const char *sub[] = {"CLSCAN_LOOKBACK_WALK", "sub-group", NULL};
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, sub), CLSCAN_SUCCESS);
    ck_assert_int_eq(clscan__select_config_choose(NULL, &p, CLSCAN__SCAN_SINGLE_PASS,
                                                  CLSCAN__SELECT_UNIQUE, CLSCAN_INT32,
                                                  CLSCAN_UINT32, NULL, &c),
                     CLSCAN_SUCCESS);
    ck_assert(c.lb_walk == CLSCAN__LB_WALK_SUBGROUP && c.ptx_maxnreg == 0);
    const char *bad[] = {"CLSCAN_LOOKBACK_WALK", "warp", NULL};
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, bad),
                     CLSCAN_ERROR_INVALID_ENVIRONMENT);
    ck_assert(strstr(clscan_context_last_error(NULL), "CLSCAN_LOOKBACK_WALK"));
    clscan__profile_free(&p);
    /* A CPU (no NVIDIA warps) keeps the kernels' own walk, uncapped. */
    fake_cpu(&p);
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, NULL), CLSCAN_SUCCESS);
    ck_assert_int_eq(clscan__scan_config_choose(NULL, &p, CLSCAN__SCAN_SINGLE_PASS, CLSCAN_INT32,
                                                CLSCAN_OP_ADD, &c),
                     CLSCAN_SUCCESS);
    ck_assert(c.lb_walk == CLSCAN__LB_WALK_AUTO && c.ptx_maxnreg == 0);
    clscan__profile_free(&p);
}
END_TEST

/* The register cap of int32 run-length encoding's single-pass program under p, finished
 * with the environment env. */
static cl_uint runs_cap(clscan__profile *p, const char **env)
{
    clscan__scan_config c;
    ck_assert_int_eq(clscan__profile_finish(NULL, p, table_getenv, env), CLSCAN_SUCCESS);
    ck_assert_int_eq(clscan__select_config_choose(NULL, p, CLSCAN__SCAN_SINGLE_PASS,
                                                  CLSCAN__SELECT_RUNS, CLSCAN_INT32,
                                                  CLSCAN_UINT64, NULL, &c),
                     CLSCAN_SUCCESS);
    return c.ptx_maxnreg;
}

/* NVIDIA's single-pass compactions carry the profile's register caps
 * (kernels/config.c, compaction_register_cap): of 4-byte elements 64 for run-length
 * encoding, 48 for the other modes; of 8-byte elements 48 for unique and run-length
 * encoding, whose elements are stashed (unique's of any size; none where the stash does
 * not fit local memory), none for the others; 8-byte counts of 4-byte elements, the multi-level
 * scan, a forced walk and a CPU take none. The cap reaches the program's defines. */
START_TEST(test_compaction_register_cap)
{
    clscan__profile p;
    fake_h100(&p);
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, NULL), CLSCAN_SUCCESS);
    clscan__scan_config c;
    char d[2048];
    const struct {
        clscan__select_mode mode;
        clscan_type elem, count;
        cl_uint cap;
    } cases[] = {
        {CLSCAN__SELECT_IF, CLSCAN_INT32, CLSCAN_UINT32, 48},
        {CLSCAN__SELECT_FLAGGED, CLSCAN_FLOAT, CLSCAN_UINT32, 48},
        {CLSCAN__SELECT_PARTITION, CLSCAN_UINT32, CLSCAN_UINT32, 48},
        {CLSCAN__SELECT_RUNS, CLSCAN_INT32, CLSCAN_UINT64, 64},
        {CLSCAN__SELECT_UNIQUE, CLSCAN_INT32, CLSCAN_UINT32, 48},
        {CLSCAN__SELECT_IF, CLSCAN_INT64, CLSCAN_UINT32, 0},
        {CLSCAN__SELECT_IF, CLSCAN_INT32, CLSCAN_UINT64, 0},
        {CLSCAN__SELECT_RUNS, CLSCAN_DOUBLE, CLSCAN_UINT64, 48},
        {CLSCAN__SELECT_UNIQUE, CLSCAN_INT64, CLSCAN_UINT32, 48},
        {CLSCAN__SELECT_FLAGGED, CLSCAN_UINT64, CLSCAN_UINT32, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const char *pred = cases[i].mode == CLSCAN__SELECT_IF ? "x > 0" : NULL;
        ck_assert_int_eq(clscan__select_config_choose(NULL, &p, CLSCAN__SCAN_SINGLE_PASS,
                                                      cases[i].mode, cases[i].elem,
                                                      cases[i].count, pred, &c),
                         CLSCAN_SUCCESS);
        ck_assert_msg(c.ptx_maxnreg == cases[i].cap, "case %zu: cap %u, wanted %u", i,
                      c.ptx_maxnreg, cases[i].cap);
        ck_assert(clscan__kernel_defines(&c, &p, CLSCAN__DEFINES_BLOCK, d, sizeof d) < sizeof d);
        ck_assert(!cases[i].cap == !strstr(d, "CLSCAN_PTX_MAXNREG"));
        ck_assert_int_eq(clscan__select_config_choose(NULL, &p, CLSCAN__SCAN_MULTI_LEVEL,
                                                      cases[i].mode, cases[i].elem,
                                                      cases[i].count, pred, &c),
                         CLSCAN_SUCCESS);
        ck_assert_uint_eq(c.ptx_maxnreg, 0);
    }
    {
        clscan__profile q = p; /* (a copy of the fields, freed with p) */
        /* (34 KiB: the tile of 256 x 16 fits, its stash of 32 KiB beside it does not) */
        q.local_mem_size = 34816;
        ck_assert_int_eq(clscan__select_config_choose(NULL, &q, CLSCAN__SCAN_SINGLE_PASS,
                                                      CLSCAN__SELECT_RUNS, CLSCAN_INT64,
                                                      CLSCAN_UINT64, NULL, &c),
                         CLSCAN_SUCCESS);
        ck_assert_uint_eq(c.sel_stash, 0);
        ck_assert_uint_eq(c.ptx_maxnreg, 0);
    }
    const char *group[] = {"CLSCAN_LOOKBACK_WALK", "group", NULL};
    ck_assert_uint_eq(runs_cap(&p, group), 0);
    clscan__profile_free(&p);
    fake_cpu(&p);
    ck_assert_uint_eq(runs_cap(&p, NULL), 0);
    clscan__profile_free(&p);
}
END_TEST

START_TEST(test_subgroup_choice)
{
    clscan__profile p;
    /* The H100: NVIDIA's platform and a queried warp of 32 give PTX shuffles. */
    fake_h100(&p);
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, NULL), CLSCAN_SUCCESS);
    ck_assert_int_eq(p.sg_impl, CLSCAN__SG_NVIDIA);
    ck_assert_uint_eq(p.sg_width, 32);
    ck_assert_int_eq(p.wg_algo, CLSCAN__WG_SUBGROUP);
    clscan__profile_free(&p);
    /* Claiming to be NVIDIA is not enough: PoCL with CLSCAN_VENDOR=nvidia stays local. */
    fake_cpu(&p);
    const char *vendor[] = {"CLSCAN_VENDOR", "nvidia", "CLSCAN_SUBGROUP_WIDTH", "32", NULL};
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, vendor), CLSCAN_SUCCESS);
    ck_assert_int_eq(p.sg_impl, CLSCAN__SG_LOCAL);
    ck_assert_int_eq(p.wg_algo, CLSCAN__WG_BLELLOCH);
    clscan__profile_free(&p);
    /* ...and forcing PTX there is an error that says why. */
    fake_cpu(&p);
    const char *force_nv[] = {"CLSCAN_SUBGROUP_IMPL", "nvidia", NULL};
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, force_nv),
                     CLSCAN_ERROR_INVALID_ENVIRONMENT);
    ck_assert(strstr(clscan_context_last_error(NULL), "not NVIDIA's"));
    clscan__profile_free(&p);
    /* A queried width that the override replaces no longer qualifies for PTX. */
    fake_h100(&p);
    const char *w64[] = {"CLSCAN_SUBGROUP_WIDTH", "64", NULL};
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, w64), CLSCAN_SUCCESS);
    ck_assert_int_eq(p.sg_impl, CLSCAN__SG_LOCAL);
    ck_assert_uint_eq(p.sg_width, 64);
    clscan__profile_free(&p);
    /* KHR sub-groups, from the extension or the 3.0 feature. */
    fake_cpu(&p);
    const char *khr[] = {"CLSCAN_EXTENSIONS", "cl_khr_fp64 cl_khr_subgroups", NULL};
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, khr), CLSCAN_SUCCESS);
    ck_assert_int_eq(p.sg_impl, CLSCAN__SG_KHR);
    ck_assert_int_eq(p.wg_algo, CLSCAN__WG_SUBGROUP);
    clscan__profile_free(&p);
    /* Intel shuffles need the width fixed (cl_intel_required_subgroup_size) and queried. */
    fake_cpu(&p);
    p.subgroup_width = 16;
    p.subgroup_queried = 1;
    const char *intel[] = {"CLSCAN_EXTENSIONS",
                           "cl_intel_subgroups cl_intel_required_subgroup_size", NULL};
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, intel), CLSCAN_SUCCESS);
    ck_assert_int_eq(p.sg_impl, CLSCAN__SG_INTEL);
    ck_assert_uint_eq(p.sg_width, 16);
    clscan__profile_free(&p);
    /* A width override among those the device offers (CL_DEVICE_SUB_GROUP_SIZES_INTEL)
     * keeps Intel's shuffles; with cl_khr_subgroup_ballot, sub-groups of 32 then ballot
     * (compactions rank by ballots, and stash their elements). One it does not offer
     * falls back to local memory. */
    for (int offered = 0; offered < 2; ++offered) {
        fake_cpu(&p);
        p.subgroup_width = 16;
        p.subgroup_queried = 1;
        p.sg_intel_widths = offered ? 8 | 16 | 32 : 8 | 16;
        const char *intel32[] = {"CLSCAN_EXTENSIONS",
                                 "cl_intel_subgroups cl_intel_required_subgroup_size "
                                 "cl_khr_subgroup_ballot",
                                 "CLSCAN_SUBGROUP_WIDTH", "32", "CLSCAN_SP_WORK_GROUP_SIZE",
                                 "64", "CLSCAN_SP_ITEMS_PER_THREAD", "32", NULL};
        ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, intel32),
                         CLSCAN_SUCCESS);
        ck_assert_int_eq(p.sg_impl, offered ? CLSCAN__SG_INTEL : CLSCAN__SG_LOCAL);
        ck_assert_uint_eq(p.sg_width, 32);
        clscan__scan_config c;
        ck_assert_int_eq(clscan__select_config_choose(NULL, &p, CLSCAN__SCAN_SINGLE_PASS,
                                                      CLSCAN__SELECT_IF, CLSCAN_INT32,
                                                      CLSCAN_UINT32, "x > 0", &c),
                         CLSCAN_SUCCESS);
        ck_assert_uint_eq(c.wg_size, 64);
        ck_assert_int_eq(clscan__sg_khr_ballot(&c, &p), offered);
        ck_assert_uint_eq(c.sel_stash, (unsigned)offered);
        char defs[4096];
        ck_assert(clscan__kernel_defines(&c, &p, CLSCAN__DEFINES_BLOCK, defs, sizeof defs) <
                  sizeof defs);
        ck_assert_int_eq(strstr(defs, "#define CLSCAN_SG_KHR_BALLOT 1\n") != NULL, offered);
        clscan__profile_free(&p);
    }
    /* Explicit choices, and bad values. */
    fake_cpu(&p);
    const char *sgwg[] = {"CLSCAN_WG_SCAN", "subgroup", "CLSCAN_SUBGROUP_IMPL", "local",
                          "CLSCAN_SUBGROUP_WIDTH", "8", NULL};
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, sgwg), CLSCAN_SUCCESS);
    ck_assert_int_eq(p.sg_impl, CLSCAN__SG_LOCAL);
    ck_assert_int_eq(p.wg_algo, CLSCAN__WG_SUBGROUP);
    ck_assert_uint_eq(p.sg_width, 8);
    clscan__profile_free(&p);
    fake_cpu(&p);
    const char *bad[] = {"CLSCAN_WG_SCAN", "kogge", NULL};
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, bad),
                     CLSCAN_ERROR_INVALID_ENVIRONMENT);
    ck_assert(strstr(clscan_context_last_error(NULL), "blelloch or subgroup"));
    clscan__profile_free(&p);
    /* Widths must be powers of two: an override that is not is refused... */
    fake_cpu(&p);
    const char *w48[] = {"CLSCAN_SUBGROUP_WIDTH", "48", NULL};
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, w48),
                     CLSCAN_ERROR_INVALID_ENVIRONMENT);
    ck_assert(strstr(clscan_context_last_error(NULL), "power of two"));
    clscan__profile_free(&p);
    /* ...and a device reporting one gets the emulated width in local memory. */
    fake_h100(&p);
    p.subgroup_width = 48;
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, NULL), CLSCAN_SUCCESS);
    ck_assert_int_eq(p.sg_impl, CLSCAN__SG_LOCAL);
    ck_assert_uint_eq(p.sg_width, 32);
    clscan__profile_free(&p);
    fake_cpu(&p);
    const char *bad_khr[] = {"CLSCAN_SUBGROUP_IMPL", "khr", NULL};
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, bad_khr),
                     CLSCAN_ERROR_INVALID_ENVIRONMENT);
    clscan__profile_free(&p);
}
END_TEST

START_TEST(test_config_fits_local_memory)
{
    clscan__profile p;
    fake_h100(&p);
    ck_assert_int_eq(clscan__profile_finish(NULL, &p, table_getenv, NULL), CLSCAN_SUCCESS);
    p.scan_algo = CLSCAN__SCAN_MULTI_LEVEL;
    clscan__scan_config c;
    /* 8-byte types take half the items, so the tile stays within the same bytes. */
    ck_assert_int_eq(clscan__scan_config_choose(NULL, &p, p.scan_algo, CLSCAN_DOUBLE, CLSCAN_OP_ADD,
                                                &c),
                     CLSCAN_SUCCESS);
    ck_assert_uint_eq(c.items, 4);
    ck_assert(clscan__scan_local_bytes(&c, &p) <= p.local_mem_size);
    /* 4 KiB of local memory: the shape shrinks until it fits. */
    p.local_mem_size = 4096;
    ck_assert_int_eq(clscan__scan_config_choose(NULL, &p, p.scan_algo, CLSCAN_UINT64, CLSCAN_OP_ADD,
                                                &c),
                     CLSCAN_SUCCESS);
    ck_assert(clscan__scan_local_bytes(&c, &p) <= 4096 - 256);
    ck_assert(c.wg_size * c.items >= 64);
    /* Padding adds one slot per 32: 256 x 8 ints = 2048 + 64, and 256 + 8 sums. */
    c.type = CLSCAN_INT32;
    c.wg_size = 256;
    c.items = 8;
    c.log_banks = 5;
    c.wg_algo = CLSCAN__WG_BLELLOCH;
    ck_assert_uint_eq(clscan__scan_local_bytes(&c, &p), (2048 + 64 + 256 + 8) * 4);
    c.log_banks = 0;
    ck_assert_uint_eq(clscan__scan_local_bytes(&c, &p), (2048 + 256) * 4);
    /* Sub-group scan: totals and prefixes of 8 warps, no shuffle scratch with PTX... */
    c.wg_algo = CLSCAN__WG_SUBGROUP;
    c.sg_impl = CLSCAN__SG_NVIDIA;
    c.sg_width = 32;
    ck_assert_uint_eq(clscan__scan_local_bytes(&c, &p), (2048 + 16) * 4);
    /* ...and one slot per work-item more for local-memory shuffles. */
    c.sg_impl = CLSCAN__SG_LOCAL;
    ck_assert_uint_eq(clscan__scan_local_bytes(&c, &p), (2048 + 256 + 16) * 4);
    /* Too little local memory for any tile is an error, not a crash. */
    p.local_mem_size = 4; /* one int and its sum need 8 */
    ck_assert_int_eq(clscan__scan_config_choose(NULL, &p, p.scan_algo, CLSCAN_INT32, CLSCAN_OP_ADD,
                                                &c),
                     CLSCAN_ERROR_OUT_OF_RESOURCES);
    clscan__profile_free(&p);
}
END_TEST

START_TEST(test_embedded_sources)
{
    static const char *const files[] = {"clscan_common.cl",      "clscan_subgroup.cl",
                                        "clscan_workgroup.cl",   "clscan_scan.cl",
                                        "clscan_select_tile.cl", "clscan_select.cl"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; ++i) {
        size_t len = 0;
        const char *text = clscan__embedded_source(files[i], &len);
        ck_assert_msg(text != NULL, "%s not embedded", files[i]);
        ck_assert_uint_eq(len, strlen(text));
        ck_assert(len > 100);
    }
    ck_assert(strstr(clscan__embedded_source("clscan_scan.cl", NULL), "clscan_scan_tiles"));
    ck_assert(strstr(clscan__embedded_source("clscan_select.cl", NULL), "clscan_sel_single"));
    ck_assert(clscan__embedded_source("missing.cl", NULL) == NULL);
}
END_TEST

/* The register cap put into NVIDIA's PTX (kernels/ptx.c): before the body of each
 * entry, nowhere else, the bytes after the text kept; nothing for what is not PTX with
 * entries, or already carries a register or occupancy directive. */
/* The one-sweep sort's shape on an H100's profile: keys, and pairs whose values are no
 * wider than the keys, placed in local memory as they are ranked (pairs with the items of
 * keys alone) with their register caps, which CLSCAN_SORT_MAX_REGISTERS sets together;
 * wider values, and pairs that would not fit, the form with values beside the keys. */
static void onesweep_case(const clscan__profile *q, clscan_type key, cl_uint value_bytes,
                          clscan__scan_config *c)
{
    ck_assert_int_eq(clscan__scan_config_choose(NULL, q, CLSCAN__SCAN_MULTI_LEVEL, CLSCAN_UINT32,
                                                CLSCAN_OP_ADD, c),
                     CLSCAN_SUCCESS);
    c->kind = CLSCAN__PROGRAM_SORT;
    c->elem_type = key;
    c->value_bytes = value_bytes;
    clscan__onesweep_shape(q, 1u << 24, c);
    ck_assert_uint_eq(c->sort_onesweep, 1);
    ck_assert_uint_eq(c->wg_size, 256);
    ck_assert_uint_le(clscan__onesweep_local_bytes(c, q), q->local_mem_size);
}

START_TEST(test_onesweep_shape)
{
    for (int forced = 0; forced < 2; ++forced) {
        const char *env[] = {"CLSCAN_SORT_MAX_REGISTERS", "56", NULL};
        clscan__profile q;
        fake_h100(&q);
        ck_assert_int_eq(clscan__profile_finish(NULL, &q, table_getenv, forced ? (void *)env : NULL),
                         CLSCAN_SUCCESS);
        ck_assert_int_eq(q.sort_algo, CLSCAN__SORT_ONESWEEP);
        clscan__scan_config c;
        char defs[4096];
        onesweep_case(&q, CLSCAN_UINT32, 0, &c);
        ck_assert_uint_eq(c.sort_place_early, 1);
        ck_assert_uint_eq(c.items, 24);
        ck_assert_uint_eq(c.ptx_maxnreg, forced ? 56 : 64);
        onesweep_case(&q, CLSCAN_FLOAT, 4, &c);
        ck_assert_uint_eq(c.sort_place_early, 1);
        ck_assert_uint_eq(c.items, 24);
        ck_assert_uint_eq(c.ptx_maxnreg, forced ? 56 : 72);
        /* (values share the keys' memory: no more than keys alone with their match words) */
        clscan__scan_config k = c;
        k.value_bytes = 0;
        ck_assert_uint_eq(clscan__onesweep_local_bytes(&c, &q), clscan__onesweep_local_bytes(&k, &q));
        ck_assert(clscan__kernel_defines(&c, &q, CLSCAN__DEFINES_BLOCK, defs, sizeof defs) < sizeof defs);
        ck_assert(strstr(defs, "#define CLSCAN_OS_PLACE_EARLY 1\n"));
        ck_assert(strstr(defs, "#define CLSCAN_SORT_VALUE_BYTES 4\n"));
        /* 8-byte values of 4-byte keys: beside the keys, 8 items, no cap. */
        onesweep_case(&q, CLSCAN_UINT32, 8, &c);
        ck_assert_uint_eq(c.sort_place_early, 0);
        ck_assert_uint_eq(c.items, 8);
        ck_assert_uint_eq(c.ptx_maxnreg, 0);
        ck_assert(clscan__kernel_defines(&c, &q, CLSCAN__DEFINES_BLOCK, defs, sizeof defs) < sizeof defs);
        ck_assert(!strstr(defs, "CLSCAN_OS_PLACE_EARLY"));
        /* 8-byte keys: 16 of them a work-item do not fit beside their own match words in
         * 48 KiB, alone or with values: the match words in the keys' memory. */
        onesweep_case(&q, CLSCAN_INT64, 0, &c);
        ck_assert_uint_eq(c.sort_place_early, 0);
        ck_assert_uint_eq(c.items, 16);
        ck_assert_uint_eq(c.ptx_maxnreg, 0);
        onesweep_case(&q, CLSCAN_INT64, 8, &c);
        ck_assert_uint_eq(c.sort_place_early, 0);
        ck_assert_uint_eq(c.items, 8);
        clscan__profile_free(&q);
    }
}
END_TEST

START_TEST(test_ptx_maxnreg)
{
    static const char head[] = "//\n// Generated\n//\n\n.version 8.5\n.target sm_90\n"
                               ".address_size 64\n\n.func (.param .b32 r) helper()\n{\n\tret;\n}\n"
                               "\t// .globl\tclscan_a\n.entry clscan_a(\n"
                               "\t.param .u64 .ptr .global .align 4 clscan_a_param_0\n)\n"
                               ".reqntid 256, 1, 1\n";
    static const char body_a[] = "{\n\tret;\n}\n.visible .entry clscan_b()\n";
    static const char body_b[] = "{\n\tret;\n}\n";
    char ptx[512], want[600];
    const int plen = snprintf(ptx, sizeof ptx, "%s%s%s", head, body_a, body_b);
    const int wlen = snprintf(want, sizeof want, "%s\n.maxnreg 64\n%s\n.maxnreg 64\n%s", head,
                              body_a, body_b);
    /* With the NUL NVIDIA's binary ends in, and a byte past it. */
    ptx[plen + 1] = 'x';
    want[wlen + 1] = 'x';
    size_t n = 0;
    char *out = clscan__ptx_with_maxnreg(ptx, (size_t)plen + 2, 64, &n);
    ck_assert_ptr_nonnull(out);
    ck_assert_uint_eq(n, (size_t)wlen + 2);
    ck_assert_mem_eq(out, want, n);
    free(out);
    /* Not PTX, no entry, already capped, no cap asked. */
    ck_assert_ptr_null(clscan__ptx_with_maxnreg("__kernel void f(void) {}", 24, 64, &n));
    static const char no_entry[] = ".version 8.5\n.target sm_90\n.func f()\n{\n\tret;\n}\n";
    ck_assert_ptr_null(clscan__ptx_with_maxnreg(no_entry, sizeof no_entry - 1, 64, &n));
    static const char capped[] = ".version 8.5\n.target sm_90\n.entry f()\n.maxnreg 32\n{\n}\n";
    ck_assert_ptr_null(clscan__ptx_with_maxnreg(capped, sizeof capped - 1, 64, &n));
    static const char occupancy[] = ".version 8.5\n.target sm_90\n.entry f()\n.maxntid 256\n"
                                    ".minnctapersm 4\n{\n}\n";
    ck_assert_ptr_null(clscan__ptx_with_maxnreg(occupancy, sizeof occupancy - 1, 64, &n));
    ck_assert_ptr_null(clscan__ptx_with_maxnreg(ptx, (size_t)plen, 0, &n));
    /* An entry whose body is missing. */
    static const char cut[] = ".version 8.5\n.target sm_90\n.entry f(\n.param .u32 a\n)\n";
    ck_assert_ptr_null(clscan__ptx_with_maxnreg(cut, sizeof cut - 1, 64, &n));
}
END_TEST

/* A general program's request for the register cap that fits its local memory (the
 * comment its kernel writes into the PTX), and the cap for an H100's or H200's
 * multiprocessor. */
START_TEST(test_ptx_fit_registers)
{
    static const char asks[] = ".version 8.5\n.target sm_90\n.entry f()\n{\n"
                               "\t// begin inline asm\n\t// clscan-fit-registers\n"
                               "\t// end inline asm\n\tret;\n}\n";
    static const char other[] = ".entry f()\n{\n\t// clscan-fit-registers-not\n}\n";
    ck_assert_int_eq(clscan__ptx_asks_fit(asks, sizeof asks - 1), 1);
    ck_assert_int_eq(clscan__ptx_asks_fit(other, sizeof other - 1), 0);
    ck_assert_int_eq(clscan__ptx_asks_fit(asks, 40), 0); /* (the comment cut off) */
    ck_assert_int_eq(clscan__ptx_asks_fit(NULL, 0), 0);
    /* (local bytes, work-group size, the cap) */
    static const struct {
        cl_ulong local;
        size_t wg;
        unsigned cap;
    } cases[] = {
        /* The 2x2 matrix scan declared exact: six groups of 256, 40 registers; the ordered
         * one five groups, 48; the predicate's count six. */
        {37808, 256, 40}, {41920, 256, 48}, {34140, 256, 40},
        /* Six groups of 37888 + 1024 bytes take exactly 228 KiB; a byte more leaves five. */
        {37888, 256, 40}, {37889, 256, 48},
        /* Two groups of 100000 bytes: 128 registers; none fits 240000 bytes. */
        {100000, 256, 128}, {240000, 256, 0},
        /* Eight groups of 256 (the work-items' limit): 32 registers, under 40, so none;
         * two of 1024 the same. */
        {1000, 256, 0}, {37808, 1024, 0}, {37808, 0, 0}, {37808, 4096, 0},
        /* One group of 64 work-items: 1024 registers, more than a work-item can have. */
        {200000, 64, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        ck_assert_msg(clscan__sm90_fit_registers(cases[i].local, cases[i].wg) == cases[i].cap,
                      "%llu bytes, groups of %zu: cap %u, want %u",
                      (unsigned long long)cases[i].local, cases[i].wg,
                      clscan__sm90_fit_registers(cases[i].local, cases[i].wg), cases[i].cap);
}
END_TEST

/* -------------------------------------------------------------- status ---- */

START_TEST(test_status_strings)
{
    ck_assert_str_eq(clscan_status_string(CLSCAN_SUCCESS), "CLSCAN_SUCCESS");
    ck_assert_str_eq(clscan_status_string(CLSCAN_ERROR_INVALID_ARGUMENT),
                     "CLSCAN_ERROR_INVALID_ARGUMENT");
    ck_assert_str_eq(clscan_status_string(CLSCAN_ERROR_BUILD_FAILED), "CLSCAN_ERROR_BUILD_FAILED");
    ck_assert_str_eq(clscan_status_string(CL_INVALID_VALUE), "CL_INVALID_VALUE");
    ck_assert_str_eq(clscan_status_string(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES");
    ck_assert_str_eq(clscan_status_string(12345), "unknown status");
    /* The library's codes are fixed numbers in their own range. */
    ck_assert_int_eq(CLSCAN_ERROR_INVALID_ARGUMENT, -7001);
    ck_assert_int_eq(CLSCAN_ERROR_UNSUPPORTED, -7002);
    ck_assert_int_eq(CLSCAN_ERROR_BUILD_FAILED, -7003);
    ck_assert_int_eq(CLSCAN_ERROR_OUT_OF_RESOURCES, -7004);
    ck_assert_int_eq(CLSCAN_ERROR_INVALID_ENVIRONMENT, -7005);
    ck_assert_uint_eq(clscan_type_size(CLSCAN_INT64), 8);
    ck_assert_uint_eq(clscan_type_size((clscan_type)42), 0);
    ck_assert_str_eq(clscan_type_name(CLSCAN_DOUBLE), "double");
    ck_assert_str_eq(clscan_op_name(CLSCAN_OP_XOR), "xor");
    ck_assert_str_eq(clscan_op_name((clscan_op)-1), "invalid");
    ck_assert_uint_eq(clscan_version(), CLSCAN_VERSION_NUMBER);
}
END_TEST

static void *other_thread_error(void *arg)
{
    (void)arg;
    return (void *)clscan_context_last_error(NULL);
}

START_TEST(test_last_error)
{
    struct clscan_context a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    /* Live contexts, as if clscan_context_create had made them, with ids of their own. */
    const unsigned long ida = clscan__context_track(&a), idb = clscan__context_track(&b);
    ck_assert(ida && idb && ida != idb);
    ck_assert_uint_eq(clscan__context_id(&a), ida);
    ck_assert_uint_eq(clscan__context_id(&b), idb);
    ck_assert_int_eq(clscan__fail(&a, CLSCAN_ERROR_INVALID_ARGUMENT, "bad %s", "thing"),
                     CLSCAN_ERROR_INVALID_ARGUMENT);
    ck_assert_str_eq(clscan_context_last_error(&a), "bad thing");
    ck_assert_str_eq(clscan_context_last_error(NULL), "bad thing");
    ck_assert_str_eq(clscan_context_last_error(&b), "");
    ck_assert_int_eq(clscan__fail_cl(&b, CL_INVALID_VALUE, "clFoo"), CL_INVALID_VALUE);
    ck_assert_str_eq(clscan_context_last_error(&b), "clFoo failed: CL_INVALID_VALUE (-30)");
    ck_assert_str_eq(clscan_context_last_error(&a), "");
    /* A long build log is kept whole. */
    char *log = malloc(100001);
    memset(log, 'x', 100000);
    log[100000] = '\0';
    clscan__fail_text(&a, CLSCAN_ERROR_BUILD_FAILED, "log:\n", log);
    ck_assert_uint_eq(strlen(clscan_context_last_error(&a)), 100005);
    free(log);
    /* Errors are per thread. */
    pthread_t t;
    void *seen;
    ck_assert_int_eq(pthread_create(&t, NULL, other_thread_error, NULL), 0);
    ck_assert_int_eq(pthread_join(t, &seen), 0);
    ck_assert_str_eq((const char *)seen, "");
    /* A context no longer live reads as NULL: the thread's last failure. */
    clscan__fail(&b, CLSCAN_ERROR_INVALID_ARGUMENT, "on b");
    ck_assert(clscan__context_untrack(&a) && clscan__context_untrack(&b));
    ck_assert(!clscan__context_untrack(&a));
    ck_assert_uint_eq(clscan__context_id(&a), 0);
    ck_assert_str_eq(clscan_context_last_error(&a), "on b");
}
END_TEST

/* ----------------------------------------------------- cl/ on their own ---- */

#ifndef CLSCAN_CL_DIR
#error "the build defines CLSCAN_CL_DIR, the path of cl/"
#endif

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)len + 1);
    if (text && fread(text, 1, (size_t)len, f) != (size_t)len) {
        free(text);
        text = NULL;
    }
    if (text) text[len] = '\0';
    fclose(f);
    return text;
}

/* Each cl/ file builds alone with only -I cl/ (every knob has a default; the one-sweep
 * sort's kernels are asked for, the bucket form's with groups of one, and the
 * histogram's as well for 64-bit samples between levels), on the first device of each
 * platform. */
START_TEST(test_cl_files_compile_alone)
{
    static const struct {
        const char *name, *options;
    } files[] = {{"clscan_common.cl", ""},      {"clscan_subgroup.cl", ""},
                 {"clscan_workgroup.cl", ""},   {"clscan_scan.cl", ""},
                 {"clscan_select_tile.cl", ""}, {"clscan_select.cl", ""},
                 {"clscan_clear.cl", ""},       {"clscan_sort.cl", ""},
                 {"clscan_sort_onesweep.cl", " -D CLSCAN_SORT_ONESWEEP=1"},
                 {"clscan_sort_buckets.cl", " -D CLSCAN_SORT_BUCKETS=1 -D CLSCAN_WG_SIZE=1"},
                 {"clscan_histogram.cl", ""},
                 {"clscan_histogram.cl", " -D CLSCAN_HIST_SAMPLE_ID=3 -D CLSCAN_HIST_MODE=2"}};
    /* Defaults, then the sub-group work-group scan for an 8-byte type and a bitwise op. */
    static const char *const variants[] = {"",
                                           " -D CLSCAN_WG_ALGO=1 -D CLSCAN_SG_WIDTH=8"
                                           " -D CLSCAN_TYPE_ID=CLSCAN_UINT64"
                                           " -D CLSCAN_OP_ID=CLSCAN_OP_XOR"};
    cl_platform_id platforms[16];
    cl_uint np = 0;
    ck_assert_int_eq(clGetPlatformIDs(16, platforms, &np), CL_SUCCESS);
    int built = 0;
    for (cl_uint pi = 0; pi < np; ++pi) {
        cl_device_id dev;
        if (clGetDeviceIDs(platforms[pi], CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS)
            continue;
        cl_int err;
        cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
        ck_assert_int_eq(err, CL_SUCCESS);
        for (size_t k = 0; k < 2 * sizeof files / sizeof files[0]; ++k) {
            const size_t i = k / 2;
            const char *variant = variants[k % 2];
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", CLSCAN_CL_DIR, files[i].name);
            char *src = read_file(path);
            ck_assert_msg(src != NULL, "cannot read %s", path);
            const char *texts[] = {src};
            cl_program prog = clCreateProgramWithSource(ctx, 1, texts, NULL, &err);
            ck_assert_int_eq(err, CL_SUCCESS);
            char opts[4200];
            snprintf(opts, sizeof opts, "-cl-std=CL1.2 -I %s%s%s", CLSCAN_CL_DIR,
                     files[i].options, variant);
            err = clBuildProgram(prog, 1, &dev, opts, NULL, NULL);
            if (err != CL_SUCCESS) {
                char log[8192] = "";
                clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
                log[sizeof log - 1] = '\0';
                ck_abort_msg("%s does not build alone with \"%s\": %s\n%s", files[i].name, opts,
                             clscan_status_string(err), log);
            }
            ++built;
            clReleaseProgram(prog);
            free(src);
        }
        clReleaseContext(ctx);
    }
    ck_assert_msg(built > 0, "no OpenCL device to build on");
}
END_TEST

static Suite *units_suite(void)
{
    Suite *s = suite_create("units");
    TCase *tc = tcase_create("host");
    tcase_add_test(tc, test_has_token);
    tcase_add_test(tc, test_text_reads_files);
    tcase_add_test(tc, test_parse_version);
    tcase_add_test(tc, test_parse_size);
    tcase_add_test(tc, test_vendor_normalise);
    tcase_add_test(tc, test_profile_tables);
    tcase_add_test(tc, test_profile_emulate_amd);
    tcase_add_test(tc, test_profile_overrides);
    tcase_add_test(tc, test_profile_bad_overrides);
    tcase_add_test(tc, test_profile_shrinks_to_device);
    tcase_add_test(tc, test_profile_describe);
    tcase_add_test(tc, test_scan_defines);
    tcase_add_test(tc, test_plain_scan_walk);
    tcase_add_test(tc, test_compaction_register_cap);
    tcase_add_test(tc, test_subgroup_choice);
    tcase_add_test(tc, test_device_scan_choice);
    tcase_add_test(tc, test_bank_probe_applied);
    tcase_add_test(tc, test_config_fits_local_memory);
    tcase_add_test(tc, test_embedded_sources);
    tcase_add_test(tc, test_ptx_maxnreg);
    tcase_add_test(tc, test_ptx_fit_registers);
    tcase_add_test(tc, test_onesweep_shape);
    tcase_add_test(tc, test_status_strings);
    tcase_add_test(tc, test_last_error);
    suite_add_tcase(s, tc);
    TCase *dev = tcase_create("device");
    tcase_set_timeout(dev, 120);
    tcase_add_test(dev, test_cl_files_compile_alone);
    suite_add_tcase(s, dev);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(units_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* types.c - the element types and operators: sizes, names, and the numbers by which a
 * kernel is specialised for them (cl/clscan_common.cl holds their OpenCL C text). */
/* SPDX-License-Identifier: MIT */
#include "base/base.h"

#include <string.h>

/* Column legend: public name, OpenCL C name, size in bytes, floating point. The OpenCL C
 * text for each type and operator lives in cl/clscan_common.cl, keyed by number. */
static const struct type_info {
    const char *name, *cl_name;
    size_t size;
    int is_float;
} types[CLSCAN_TYPE_COUNT] = {
    [CLSCAN_INT32] = {"int32", "int", 4, 0},    [CLSCAN_UINT32] = {"uint32", "uint", 4, 0},
    [CLSCAN_INT64] = {"int64", "long", 8, 0},   [CLSCAN_UINT64] = {"uint64", "ulong", 8, 0},
    [CLSCAN_FLOAT] = {"float", "float", 4, 1},  [CLSCAN_DOUBLE] = {"double", "double", 8, 1},
};

static const char *const op_names[CLSCAN_OP_COUNT] = {"add", "mul", "min", "max",
                                                      "and", "or", "xor"};

bool clscan__type_valid(int type) { return type >= 0 && type < CLSCAN_TYPE_COUNT; }
bool clscan__op_valid(int op) { return op >= 0 && op < CLSCAN_OP_COUNT; }

unsigned clscan_version(void) { return CLSCAN_VERSION_NUMBER; }

size_t clscan_type_size(clscan_type type)
{
    return clscan__type_valid((int)type) ? types[type].size : 0;
}

const char *clscan_type_name(clscan_type type)
{
    return clscan__type_valid((int)type) ? types[type].name : "invalid";
}

const char *clscan_op_name(clscan_op op)
{
    return clscan__op_valid((int)op) ? op_names[op] : "invalid";
}

bool clscan__type_is_float(clscan_type type) { return types[type].is_float; }

const char *clscan__type_cl_name(clscan_type type) { return types[type].cl_name; }

int clscan__type_from_cl_name(const char *name)
{
    for (int t = 0; t < CLSCAN_TYPE_COUNT; ++t)
        if (strcmp(name, types[t].cl_name) == 0) return t;
    return -1;
}

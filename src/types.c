/* types.c - the element types and operators: sizes, names, and the OpenCL C text
 * (type, combine expression, identity) that specialises a kernel for them. */
#include "clscan_internal.h"

#include <stdio.h>

/* Column legend: public name, OpenCL C type, size in bytes, floating point, OpenCL C
 * minimum and maximum (the MAX and MIN identities), and the reinterpretation to do
 * wrapping arithmetic in (signed types compute in their unsigned twin, since signed
 * overflow is undefined in OpenCL C as in C). */
static const struct type_info {
    const char *name;
    const char *cl;
    size_t size;
    int is_float;
    const char *min;
    const char *max;
    const char *as_unsigned; /* NULL: the type itself wraps */
    const char *as_self;
} types[CLSCAN_TYPE_COUNT] = {
    [CLSCAN_INT32] = {"int32", "int", 4, 0, "INT_MIN", "INT_MAX", "as_uint", "as_int"},
    [CLSCAN_UINT32] = {"uint32", "uint", 4, 0, "0u", "UINT_MAX", NULL, NULL},
    [CLSCAN_INT64] = {"int64", "long", 8, 0, "LONG_MIN", "LONG_MAX", "as_ulong", "as_long"},
    [CLSCAN_UINT64] = {"uint64", "ulong", 8, 0, "0ul", "ULONG_MAX", NULL, NULL},
    [CLSCAN_FLOAT] = {"float", "float", 4, 1, "(-INFINITY)", "INFINITY", NULL, NULL},
    [CLSCAN_DOUBLE] = {"double", "double", 8, 1, "(-(double)INFINITY)", "((double)INFINITY)",
                       NULL, NULL},
};

static const char *const op_names[CLSCAN_OP_COUNT] = {"add", "mul", "min", "max",
                                                      "and", "or", "xor"};

int clscan__type_valid(int type) { return type >= 0 && type < CLSCAN_TYPE_COUNT; }
int clscan__op_valid(int op) { return op >= 0 && op < CLSCAN_OP_COUNT; }

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

int clscan__type_is_float(clscan_type type) { return types[type].is_float; }
const char *clscan__type_cl_name(clscan_type type) { return types[type].cl; }

int clscan__type_op_defines(clscan_type type, clscan_op op, char *buf, size_t size)
{
    const struct type_info *t = &types[type];
    char combine[160];
    const char *identity;
    char ident_buf[64];

    switch (op) {
    case CLSCAN_OP_ADD:
    case CLSCAN_OP_MUL: {
        char sym = op == CLSCAN_OP_ADD ? '+' : '*';
        if (t->as_unsigned)
            snprintf(combine, sizeof combine, "%s(%s(a) %c %s(b))", t->as_self, t->as_unsigned,
                     sym, t->as_unsigned);
        else
            snprintf(combine, sizeof combine, "((a) %c (b))", sym);
        snprintf(ident_buf, sizeof ident_buf, "((%s)%d)", t->cl, op == CLSCAN_OP_ADD ? 0 : 1);
        identity = ident_buf;
        break;
    }
    case CLSCAN_OP_MIN:
    case CLSCAN_OP_MAX: {
        int is_min = op == CLSCAN_OP_MIN;
        if (t->is_float)
            snprintf(combine, sizeof combine, "%s((a), (b))", is_min ? "fmin" : "fmax");
        else
            snprintf(combine, sizeof combine, "((a) %c (b) ? (a) : (b))", is_min ? '<' : '>');
        snprintf(ident_buf, sizeof ident_buf, "((%s)%s)", t->cl, is_min ? t->max : t->min);
        identity = ident_buf;
        break;
    }
    default: { /* bitwise: integers only (the caller has checked) */
        char sym = op == CLSCAN_OP_AND ? '&' : op == CLSCAN_OP_OR ? '|' : '^';
        snprintf(combine, sizeof combine, "((a) %c (b))", sym);
        if (op == CLSCAN_OP_AND)
            snprintf(ident_buf, sizeof ident_buf, "((%s)~(%s)0)", t->cl, t->cl);
        else
            snprintf(ident_buf, sizeof ident_buf, "((%s)0)", t->cl);
        identity = ident_buf;
        break;
    }
    }
    return snprintf(buf, size,
                    "#define CLSCAN_T %s\n"
                    "#define CLSCAN_OP(a, b) %s\n"
                    "#define CLSCAN_IDENTITY %s\n"
                    "#define CLSCAN_TYPE_ID %d\n"
                    "#define CLSCAN_OP_ID %d\n",
                    t->cl, combine, identity, (int)type, (int)op);
}

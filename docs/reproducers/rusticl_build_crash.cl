/* rusticl_build_crash.cl - the head of the general-scan program whose build crashed Mesa 22.3:
 * its #define block and operator texts; the kernel files follow it (rusticl_build_crash.c). */
/* libclscan 0.1.0: general scan of a prelude's type (8 bytes), multi-level, blelloch work-group scan, local sub-groups, for llvmpipe (LLVM 15.0.6, 256 bits); built with -cl-std=CL1.2 */
#define CLSCAN_TYPE_ID 99
#define CLSCAN_OP_ID 99
#define CLSCAN_WG_SIZE 1
#define CLSCAN_ITEMS 512
#define CLSCAN_LOG_BANKS 0
#define CLSCAN_WG_ALGO 0
#define CLSCAN_SG_IMPL 0
#define CLSCAN_SG_WIDTH 1
#define CLSCAN_SG_SHUFFLE_RELATIVE 0
#define CLSCAN_SG_REQUIRED_SIZE 0
#define CLSCAN_SINGLE_PASS 0
#define CLSCAN_GEN_SINGLE_PASS 0
#define CLSCAN_T_BYTES 8
#define CLSCAN_WG_DIRECT 1
/* libclscan general scan: the user's source and the generated operator */
#undef sizeof
#undef typedef
#undef char
#undef struct
#undef union
int clscan_user_value_op(const int a, const int b)
{
    return (
#line 1 "combine"
as_int(as_uint(a) * as_uint(b))
#line 1 "libclscan"
    );
}
int clscan_user_value_identity(void)
{
    return (
#line 1 "identity"
(int)1
#line 1 "libclscan"
    );
}
#define CLSCAN_GEN_OUT int
#define CLSCAN_GEN_IN int
#define CLSCAN_LB_ORDERED 0
#define CLSCAN_GEN_SEGMENTS 2
#define CLSCAN_GEN_SEG int
typedef struct clscan_seg_pair { int v; uint f; } clscan_seg_pair;
clscan_seg_pair clscan_seg_make(const int v, const uint f)
{
    clscan_seg_pair r;
    r.v = v;
    r.f = f;
    return r;
}
clscan_seg_pair clscan_user_op(const clscan_seg_pair a, const clscan_seg_pair b)
{
    return clscan_seg_make(b.f ? b.v : clscan_user_value_op(a.v, b.v), add_sat(a.f, b.f));
}
clscan_seg_pair clscan_user_identity(void)
{
    return clscan_seg_make(clscan_user_value_identity(), 0u);
}
typedef char clscan_pair_size_differs_from_host[sizeof(clscan_seg_pair) == CLSCAN_T_BYTES ? 1 : -1];
#define CLSCAN_T clscan_seg_pair
#define CLSCAN_GEN_VEC_OP(a, b) (as_int8(as_uint8(a) * as_uint8(b)))
#define CLSCAN_GEN_VEC_MASK int8

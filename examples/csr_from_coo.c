/* csr_from_coo.c - example: a sparse matrix from COO entries (sorted by row) to CSR in
 * one libclscan call, explicit zeros dropped. The scan counts the kept entries (an
 * exclusive sum of "val != 0"), so each entry's scanned value y is its position in the
 * CSR arrays; the output stage (clscan_scan_output) writes the entry's column and value
 * there, and the row pointers of the rows that begin at it. No array of positions is
 * ever stored. Checks the result against a loop on the host.
 *
 * usage: csr_from_coo [entries [seed]]     (first OpenCL device of the first platform) */
/* SPDX-License-Identifier: MIT */
#include <clscan.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One COO entry, laid out alike on the host and the device (12 bytes). */
typedef struct { cl_uint row, col; cl_float val; } coo;

static const char coo_source[] = "typedef struct { uint row, col; float val; } coo;";

/* Entry i with its scanned y (kept entries before it), x = coo[i]. out0 is the COO array
 * itself (read: the row before, and the sentinel entry at n whose row is the row count),
 * out1 the row pointers, out2 the column indices, out3 the values. Rows row(i-1)+1 ..
 * row(i) begin at entry i (rows 0 .. row(0) at entry 0); after the last entry, rows
 * row(n-1)+1 .. nrows end the matrix. */
static const char output_statements[] =
    "const uint keep = x.val != 0.0f;\n"
    "if (keep) { out2[y] = x.col; out3[y] = x.val; }\n"
    "for (uint r = i == 0 ? 0u : out0[i - 1].row + 1u; r <= x.row; ++r) out1[r] = y;\n"
    "if (i + 1 == n)\n"
    "    for (uint r = x.row + 1u; r <= out0[n].row; ++r) out1[r] = y + keep;\n";

static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#define CHECK_CL(call)                                                                 \
    do {                                                                               \
        cl_int e_ = (call);                                                            \
        if (e_ != CL_SUCCESS) {                                                        \
            fprintf(stderr, "%s failed: %s\n", #call, clscan_status_string(e_));        \
            return 1;                                                                  \
        }                                                                              \
    } while (0)

int main(int argc, char **argv)
{
    const size_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 100000;
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : (uint64_t)time(NULL);
    printf("csr_from_coo: %zu entries, seed %llu\n", n, (unsigned long long)seed);
    if (n == 0) return 0;

    /* Entries sorted by row: rows advance by 0 to 3 (empty rows included), a quarter of
     * the values are explicit zeros; plus the sentinel entry holding the row count. */
    coo *e = calloc(n + 1, sizeof *e);
    if (!e) return 1;
    cl_uint row = (cl_uint)(next(&seed) % 3);
    for (size_t i = 0; i < n; i++) {
        if (i && next(&seed) % 4 == 0) row += (cl_uint)(next(&seed) % 3) + 1;
        e[i].row = row;
        e[i].col = (cl_uint)(next(&seed) % 1000);
        e[i].val = next(&seed) % 4 == 0 ? 0.0f : (float)(next(&seed) % 1000) / 8.0f;
    }
    const cl_uint nrows = row + 1 + (cl_uint)(next(&seed) % 3);
    e[n].row = nrows;

    cl_platform_id platform;
    cl_device_id device;
    cl_int err;
    CHECK_CL(clGetPlatformIDs(1, &platform, NULL));
    CHECK_CL(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL));
    cl_context cl_ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CHECK_CL(err);
    cl_command_queue queue = clCreateCommandQueue(cl_ctx, device, 0, &err);
    CHECK_CL(err);
    clscan_context *scan;
    if (clscan_context_create(cl_ctx, device, &scan) != CLSCAN_SUCCESS) {
        fprintf(stderr, "clscan_context_create: %s\n", clscan_context_last_error(NULL));
        return 1;
    }
    cl_mem entries = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                    (n + 1) * sizeof *e, e, &err);
    CHECK_CL(err);
    cl_mem row_ptr = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, (nrows + 1) * sizeof(cl_uint),
                                    NULL, &err);
    CHECK_CL(err);
    cl_mem col_idx = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, n * sizeof(cl_uint), NULL, &err);
    CHECK_CL(err);
    cl_mem vals = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, n * sizeof(cl_float), NULL, &err);
    CHECK_CL(err);

    /* The one call: an exclusive count of kept entries, its outputs written in place of a
     * dst (dst NULL), the total (the CSR's nonzeros) left in a device buffer. */
    clscan_scan_desc d = {0};
    d.type = CLSCAN_UINT32;
    d.op = CLSCAN_OP_ADD;
    d.source = coo_source;
    d.input_type_name = "coo";
    d.input_type_size = sizeof(coo);
    d.transform = "x.val != 0.0f ? 1u : 0u";
    d.output = output_statements;
    d.output_types[0] = "coo";
    d.output_types[1] = d.output_types[2] = "uint";
    d.output_types[3] = "float";
    cl_mem nnz = clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE, sizeof(cl_uint), NULL, &err);
    CHECK_CL(err);
    const clscan_carry total = {NULL, NULL, 0, nnz, 0};
    const cl_mem outs[4] = {entries, row_ptr, col_idx, vals};
    cl_event done;
    clscan_status s = clscan_scan_output(scan, queue, &d, 0, entries, 0, NULL, 0, NULL, 0, n,
                                         outs, NULL, 4, &total, 0, NULL, &done);
    if (s != CLSCAN_SUCCESS) {
        fprintf(stderr, "clscan_scan_output: %s: %s\n", clscan_status_string(s),
                clscan_context_last_error(scan));
        return 1;
    }
    CHECK_CL(clWaitForEvents(1, &done));
    clReleaseEvent(done);

    /* The host's CSR, and the device's. */
    cl_uint *want_ptr = calloc(nrows + 1, sizeof *want_ptr), *want_col = malloc(n * 4);
    cl_float *want_val = malloc(n * 4);
    cl_uint *got_ptr = malloc((nrows + 1) * 4), *got_col = malloc(n * 4), got_nnz = 0;
    cl_float *got_val = malloc(n * 4);
    if (!want_ptr || !want_col || !want_val || !got_ptr || !got_col || !got_val) return 1;
    cl_uint k = 0;
    for (size_t i = 0; i < n; i++) {
        if (e[i].val == 0.0f) continue;
        want_col[k] = e[i].col;
        want_val[k] = e[i].val;
        want_ptr[e[i].row + 1]++;
        k++;
    }
    for (cl_uint r = 0; r < nrows; r++) want_ptr[r + 1] += want_ptr[r];
    CHECK_CL(clEnqueueReadBuffer(queue, row_ptr, CL_TRUE, 0, (nrows + 1) * 4, got_ptr, 0, NULL,
                                 NULL));
    CHECK_CL(clEnqueueReadBuffer(queue, col_idx, CL_TRUE, 0, (size_t)k * 4, got_col, 0, NULL,
                                 NULL));
    CHECK_CL(clEnqueueReadBuffer(queue, vals, CL_TRUE, 0, (size_t)k * 4, got_val, 0, NULL, NULL));
    CHECK_CL(clEnqueueReadBuffer(queue, nnz, CL_TRUE, 0, 4, &got_nnz, 0, NULL, NULL));
    int bad = got_nnz != k;
    if (bad) fprintf(stderr, "nonzeros: %u, expected %u\n", got_nnz, k);
    for (cl_uint r = 0; r <= nrows && !bad; r++)
        if (got_ptr[r] != want_ptr[r]) {
            fprintf(stderr, "row_ptr[%u] = %u, expected %u\n", r, got_ptr[r], want_ptr[r]);
            bad = 1;
        }
    for (cl_uint j = 0; j < k && !bad; j++)
        if (got_col[j] != want_col[j] || got_val[j] != want_val[j]) {
            fprintf(stderr, "entry %u: (%u, %g), expected (%u, %g)\n", j, got_col[j],
                    (double)got_val[j], want_col[j], (double)want_val[j]);
            bad = 1;
        }
    printf("%u rows, %u nonzeros of %zu entries: %s\n", nrows, k, n, bad ? "WRONG" : "correct");

    clReleaseMemObject(entries);
    clReleaseMemObject(row_ptr);
    clReleaseMemObject(col_idx);
    clReleaseMemObject(vals);
    clReleaseMemObject(nnz);
    clscan_context_release(scan);
    clReleaseCommandQueue(queue);
    clReleaseContext(cl_ctx);
    free(e);
    free(want_ptr);
    free(want_col);
    free(want_val);
    free(got_ptr);
    free(got_col);
    free(got_val);
    return bad;
}

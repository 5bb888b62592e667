/* runtime.h - the runtime layer: the context (runtime/context.c), its cache of built
 * programs and warming (runtime/programs.c), scratch buffers (runtime/scratch.c), the
 * argument checks every call shares (runtime/checks.c) and the chain of commands of one
 * call (runtime/launch.c). Builds on kernels/ (docs/ARCHITECTURE.md). */
/* SPDX-License-Identifier: MIT */
#ifndef CLSCAN_RUNTIME_H
#define CLSCAN_RUNTIME_H

#include "kernels/kernels.h"

#include <pthread.h>

/* Hash buckets of a context's program cache (a power of two). */
#define CLSCAN__PROGRAM_BUCKETS 1024
/* The memo (runtime/memo.c): its entries, and the most bytes of key and value one holds
 * (a larger pair is not kept: its caller derives it again). */
#define CLSCAN__MEMO_ENTRIES 16
#define CLSCAN__MEMO_MAX_BYTES (256u << 10)

/* ---------------------------------------------------------------- scratch --- */
/* A device buffer for per-call temporaries (tile partials). A slot is handed to one
 * call at a time; afterwards it remembers the event of its last use, so a later call
 * reuses it only when that is safe without blocking (see scratch.c). */
typedef struct clscan__scratch {
    struct clscan__scratch *next;
    cl_mem buffer;
    size_t size;
    int busy;
    cl_event last_use;          /* retained; NULL when unused */
    cl_command_queue last_queue;/* retained with last_use */
    /* Single-pass status words: lb_clean says the buffer holds nothing but zeros and
     * status words of lb_word_bits tagged with epochs up to lb_epoch (the last call's). */
    int lb_clean;
    cl_uint lb_word_bits;
    cl_uint lb_epoch;
    /* Words that the calls using them leave at zero (a histogram's arrival words), in a
     * buffer of their own so that no other call's scratch overwrites them; zeros_clean
     * says they are all zero now. */
    cl_mem zeros;
    size_t zeros_size;
    int zeros_clean;
} clscan__scratch;

/* Hands out a scratch slot of at least `size` bytes for use on `queue`. If the only
 * safe choice is to wait for an earlier use, *wait_for receives that event (retained;
 * the caller adds it to its first kernel's wait list and releases it). */
clscan_status clscan__scratch_acquire(clscan_context *ctx, cl_command_queue queue,
                                      int queue_in_order, size_t size, clscan__scratch **out,
                                      cl_event *wait_for);
/* Returns the slot; last_use is the event after which it is free again, or NULL with
 * `ordered` set where the last commands using it were enqueued on in-order `queue`
 * without events (the queue then orders a later use; another queue waits for a marker
 * enqueued after them), or NULL and ordered 0 where the call enqueued nothing. The slot
 * retains what it keeps; the caller still owns its references. */
void clscan__scratch_release(clscan_context *ctx, clscan__scratch *slot,
                             cl_command_queue queue, cl_event last_use, bool ordered);
void clscan__scratch_free(clscan__scratch *list);
/* Makes sure the slot's zeros buffer holds `size` bytes (a new one is not clean). */
clscan_status clscan__scratch_zeros(clscan_context *ctx, clscan__scratch *slot, size_t size);

/* ---------------------------------------------------------------- context --- */

/* One entry of a context's memo (owned key and value; key NULL: empty). */
typedef struct clscan__memo_entry {
    void *key, *value;
    size_t key_len, value_len;
    uint64_t used; /* the memo's clock at its last use */
} clscan__memo_entry;

struct clscan_context {
    clscan__target target;       /* device, profile, disk cache */
    char *kernel_include_dir;   /* owned: CLSCAN_KERNEL_INCLUDE_DIR at creation, or NULL */
    /* The device scan chosen at creation, which clscan_ext_context_set_algorithm restores
     * for CLSCAN_ALGORITHM_DEFAULT. */
    clscan__scan_algo created_scan_algo;
    const char *created_scan_algo_source;
    pthread_mutex_t lock;       /* guards the program cache and scratch lists */
    /* The program cache: hash buckets of (fingerprint, texts), and the use order. */
    clscan__program *buckets[CLSCAN__PROGRAM_BUCKETS];
    clscan__program *lru_head, *lru_tail; /* newest, oldest */
    size_t program_count, program_bytes;
    clscan__scratch *scratch;
    unsigned scratch_count;
    /* The memo of recent derived values (runtime/memo.c), guarded by lock. */
    clscan__memo_entry memo[CLSCAN__MEMO_ENTRIES];
    uint64_t memo_clock;
};

/* Returns ctx's program for cfg, building it on first use (without holding ctx's lock:
 * two threads may build one program at once; the first to finish is kept), pinned: the
 * caller hands it back with clscan__program_put once its commands are enqueued. Found
 * by hash in constant time; the cache keeps at most the profile's max_programs and
 * max_program_bytes, releasing the least recently used unpinned programs first. */
clscan_status clscan__program_get(clscan_context *ctx, const clscan__scan_config *cfg,
                                  clscan__program **out);
/* clscan__program_get for a caller that keeps the hash of cfg's fingerprint and texts
 * (a general scan's prelude takes longer to hash than the enqueue): *known_hash 0 is
 * computed and stored; any other value must be what was stored for the same cfg. */
clscan_status clscan__program_get_hashed(clscan_context *ctx, const clscan__scan_config *cfg,
                                         uint64_t *known_hash, clscan__program **out);
/* Unpins prog (NULL is ignored); the cache may then release it. */
void clscan__program_put(clscan_context *ctx, clscan__program *prog);
/* Releases every program of ctx's cache (context release). */
void clscan__programs_clear(clscan_context *ctx);

/* The memo: what a caller derived from the exact bytes of a key, kept for its next call
 * with the same bytes (its general scans' checked descriptions and program shapes, whose
 * texts took longer to format than the enqueue). clscan__memo_get copies the first `cap`
 * bytes of the value stored under key to out and returns its whole length (0: none
 * stored; a caller whose buffer was short asks again with a larger one). clscan__memo_put
 * stores a copy of a value of at least one byte, replacing the least recently used entry
 * (a pair of more than CLSCAN__MEMO_MAX_BYTES is not kept, nor one when memory runs
 * out). clscan__memo_clear frees them all (context release). */
size_t clscan__memo_get(clscan_context *ctx, const void *key, size_t key_len, void *out,
                        size_t cap);
void clscan__memo_put(clscan_context *ctx, const void *key, size_t key_len, const void *value,
                      size_t value_len);
void clscan__memo_clear(clscan_context *ctx);

/* --------------------------------------------------------------- dispatch --- */

/* Checks type and op values, and that the device supports them (fp64, bitwise on
 * integers only); ctx is not NULL. */
clscan_status clscan__check_type_op(const clscan_context *ctx, clscan_type type, clscan_op op);

/* Argument checks every enqueueing call shares (launch.c). clscan__check_call validates
 * ctx, queue (of ctx's context and device), type and op, and the wait list, and says
 * whether the queue is in order. */
clscan_status clscan__check_call(const clscan_context *ctx, cl_command_queue queue,
                                 clscan_type type, clscan_op op, cl_uint nwait,
                                 const cl_event *wait, bool *in_order);
/* Checks that user text `text` (NULL passes) is no longer than the context's cap
 * (CLSCAN_MAX_TEXT_BYTES) and reads no file (clscan__text_reads_files); messages call it
 * `name`. */
clscan_status clscan__check_text_length(const clscan_context *ctx, const char *text,
                                        const char *name);
/* Checks that `mem` is a buffer of ctx holding elements [offset, offset + n) of `elem`
 * bytes each; messages call it `name`. */
clscan_status clscan__check_range(const clscan_context *ctx, cl_mem mem, const char *name,
                                  size_t offset, size_t n, size_t elem);
/* Creates a read-write device buffer of `bytes` for the library's own use, refusing
 * (CLSCAN_ERROR_OUT_OF_RESOURCES) more than the device's largest allocation. */
clscan_status clscan__create_buffer(clscan_context *ctx, size_t bytes, const char *what,
                                    cl_mem *out);
/* Refuses src and dst ranges of n elements that overlap without being the same range. */
clscan_status clscan__check_in_place(const clscan_context *ctx, cl_mem src, size_t src_offset,
                                     cl_mem dst, size_t dst_offset, size_t n);
/* Refuses byte ranges [a_off, +a_len) of a and [b_off, +b_len) of b that share a byte
 * of one buffer; messages call them a_name and b_name. */
clscan_status clscan__check_disjoint(const clscan_context *ctx, cl_mem a, const char *a_name,
                                     size_t a_off, size_t a_len, cl_mem b, const char *b_name,
                                     size_t b_off, size_t b_len);

/* The commands of one call: each waits for the one before (through the wait list on an
 * out-of-order queue), the first for the caller's wait list and, where needed, the
 * scratch slot's last use. */
/* A call's carry (include/clscan.h: clscan_carry), checked, as the scan kernels' carry
 * arguments take it (cl/clscan_scan.cl: CLSCAN_CARRY_IN): the value by value (the host
 * carry-in, or zeros), the buffers (a buffer of the call where there is none), their
 * element offsets and the flags. */
typedef struct clscan__carry_args {
    const void *value;
    size_t value_size;
    cl_mem in_buf, out_buf;
    cl_ulong in_off, out_off;
    cl_uint flags;
} clscan__carry_args;
#define CLSCAN__CARRY_FLAG_IN 1u
#define CLSCAN__CARRY_FLAG_IN_BUFFER 2u
#define CLSCAN__CARRY_FLAG_OUT 4u
#define CLSCAN__CARRY_FLAG_NO_DST 8u
#define CLSCAN__CARRY_FLAG_SKIP_STORE 16u /* an output stage without dst */
#define CLSCAN__CARRY_FLAG_STREAM 32u     /* dst past the caches (CPU shapes): clscan__stream_flag */
/* A byte range of a buffer that a call reads or writes, for the overlap checks. */
typedef struct clscan__byte_range {
    cl_mem mem;
    const char *name;
    size_t off, len;
} clscan__byte_range;
/* Checks carry (NULL: none) for elements of elem bytes: the buffers' context and range,
 * the total's element against `ranges` (the call's other ranges, NULL mems skipped);
 * no_dst: the call has no dst (then the total is required). Fills *out; absent buffers
 * are NULL (see clscan__no_carry). */
clscan_status clscan__check_carry(const clscan_context *ctx, const clscan_carry *carry,
                                  size_t elem, bool no_dst,
                                  const clscan__byte_range *ranges, int nranges,
                                  clscan__carry_args *out);
/* No carry, for internal scans: zeros of elem bytes, and NULL buffers. The kernels read
 * and write the carry's buffers only where the flags say they are given, and a NULL
 * buffer argument costs the host's enqueue less than a stand-in buffer: on the H200 each
 * non-NULL buffer argument took about 0.2 us (docs/PERFORMANCE.md, fortieth session). */
clscan__carry_args clscan__no_carry(size_t elem);
/* Sets the six carry arguments (value, in_buf, in_off, out_buf, out_off, flags) as a's
 * next ones, counting on. */
void clscan__set_carry_args(clscan__kernel_args *a, const clscan__carry_args *c);

typedef struct clscan__launch {
    clscan_context *ctx;
    cl_command_queue queue;
    bool in_order;
    /* Whether commands get events: on an out-of-order queue, for a caller that asked for
     * one, and while a trace is set; otherwise the in-order queue orders them (an event
     * cost the NVIDIA H200's host 1.5 of a kernel enqueue's 6.7 us: PERFORMANCE.md). */
    bool events;
    bool unevented;         /* a command was enqueued without an event */
    cl_uint nwait;          /* wait list for the next command */
    const cl_event *wait;
    cl_event last;          /* event of the last command enqueued (owned), or NULL */
    clscan__scratch *scratch;/* the call's scratch slot, or NULL */
    cl_event scratch_wait;  /* owned: the slot's earlier use the first command waits for */
    cl_event *first_wait;   /* owned: the first command's wait list, when extended */
} clscan__launch;

/* Starts a launch; with scratch_bytes > 0 it holds a scratch slot of that size. `event`
 * is the caller's (NULL: none asked for, so that an in-order queue's commands need no
 * events). */
clscan_status clscan__launch_begin(clscan__launch *l, clscan_context *ctx,
                                   cl_command_queue queue, bool in_order, cl_uint nwait,
                                   const cl_event *wait, size_t scratch_bytes,
                                   const cl_event *event);
/* Ends it with status s: hands the last command's event to *event (if s is success and
 * event is not NULL), gives the scratch slot back, frees the rest. Returns s. */
clscan_status clscan__launch_end(clscan__launch *l, clscan_status s, cl_event *event);
/* The carry flag CLSCAN__CARRY_FLAG_STREAM for a call that reads n elements of in_size
 * bytes and writes n of out_size: set where together they fill the device's global
 * memory cache (a CPU's last-level cache), so that its stores need not first read the
 * lines they write; 0 below, where the output would still be in the cache for whatever
 * reads it next. Only one work-item groups' single-pass kernels (CPUs) stream: the plain
 * scan's, and the general scan's segmented vector path without an output stage. */
cl_uint clscan__stream_flag(const clscan_context *ctx, size_t n, size_t in_size,
                            size_t out_size);
/* Enqueues kernel k on `groups` work-groups of wg_size as the launch's next command. */
clscan_status clscan__enqueue(clscan__launch *l, cl_kernel k, size_t groups, size_t wg_size,
                              const char *what);
/* Makes ev (owned) the launch's last command, which the next one waits for. */
void clscan__launch_chain(clscan__launch *l, cl_event ev);
/* Copies bytes [offset, +bytes) of src into a new buffer (*copy, which the caller
 * releases once it has enqueued what reads it), as the launch's next command: an in-place
 * call's input, where tiles would otherwise read what others overwrite. */
clscan_status clscan__enqueue_copy_input(clscan__launch *l, cl_mem src, size_t offset,
                                         size_t bytes, cl_mem *copy);
/* Zeroes words [0, n) of buf with prog's clscan_clear_words (CLSCAN__K_CLEAR; the
 * caller holds prog's lock), as the launch's next command. */
clscan_status clscan__enqueue_clear(clscan__launch *l, clscan__program *prog, cl_mem buf,
                                    cl_ulong n);
/* A call with nothing to count: the cl_ulong at byte 0 of count set to 0 after the wait
 * list (a fill; *event, when asked for, completes with it). */
clscan_status clscan__enqueue_zero_count(clscan_context *ctx, cl_command_queue queue,
                                         cl_mem count, cl_uint nwait, const cl_event *wait,
                                         cl_event *event);
/* An empty call: a marker after the wait list, if an event or a wait list asks for it. */
clscan_status clscan__enqueue_marker(clscan_context *ctx, cl_command_queue queue,
                                     cl_uint nwait, const cl_event *wait, cl_event *event);

#endif /* CLSCAN_RUNTIME_H */

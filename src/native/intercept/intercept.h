/* clasp's run-check interceptor, shared declarations. The library is preloaded (LD_PRELOAD) into
 * the user's program by `clasp run-check`; it records what the program's kernels compute and, in
 * the migrated run, replaces program sources by clasp's migrated ones. It does nothing (every call
 * goes straight to the loader) unless $CLASP_RUNCHECK_LOG names a folder.
 *
 * The parts: state.c (the real functions, the trace file, kernels' arguments), pending.c (copies of
 * buffers taken without blocking the program, written to the trace once they are complete),
 * sources.c (substituted sources and build options), calls.c (the OpenCL entry points wrapped). */
#ifndef CLASP_INTERCEPT_H
#define CLASP_INTERCEPT_H

#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS /* clCreateCommandQueue and clEnqueueTask, which 1.x hosts call */
#include <CL/cl.h>
#include <pthread.h>
#include <stdio.h>

/* The real entry point `name` of the loader, looked up once per call site. */
#define REAL(name)                                   \
    ({                                               \
        static void *found_;                         \
        if (!found_) found_ = real_fn(#name);        \
        (__typeof__(&name))found_;                   \
    })

void *real_fn(const char *name);

/* The folder the trace goes to, or NULL when run-check is not running this program. */
const char *log_dir(void);

/* Guards every table below and the trace file. */
extern pthread_mutex_t intercept_lock;

/* This process's trace, opened on first use (again in a forked child). Call with the lock held. */
FILE *trace_file(void);
/* Writes `size` bytes to <pid>-<seq>.bin and returns the sequence number. Call with the lock held. */
unsigned long write_blob(const void *data, size_t size);
/* This thread's number in this process: 0 for the first thread that called OpenCL, then 1, ... */
int thread_ordinal(void);
/* Writes `text` as a JSON string (quotes included). */
void write_json_string(FILE *f, const char *text);

/* One kernel argument as the program last set it. */
struct arg {
    int set;
    size_t size;
    int local;              /* set with a NULL value: __local memory of `size` bytes */
    unsigned char *value;   /* `size` bytes (NULL for __local memory) */
};

/* The arguments of `kernel` as set so far, made on first use; NULL when out of memory. Call with
 * the lock held. */
struct arg *arguments_of(cl_kernel kernel, cl_uint count);
/* Forgets `kernel`'s arguments (its last reference is being released). Call with the lock held. */
void forget_kernel(cl_kernel kernel);

/* A copy of a buffer region into the interceptor's own memory: taken at once (`event` NULL) or by a
 * non-blocking read that completes when `event` does. */
struct copy {
    cl_event event;
    void *data;
    size_t size;
};

/* Starts a copy of `size` bytes of `mem` at `offset` by a non-blocking read on `queue` that waits
 * for `wait_list`; returns 0 when the read could not be enqueued. */
int copy_buffer(struct copy *copy, cl_command_queue queue, cl_mem mem, size_t offset, size_t size, cl_uint waits,
                const cl_event *wait_list);

/* A launch waiting for its copies: its trace line is written once they are complete. */
struct launch_record;
struct launch_record *begin_launch(cl_kernel kernel, cl_uint dims, const size_t *offset, const size_t *global,
                                   const size_t *local, cl_event done);
/* Adds argument `i` of the launch; a writable buffer is copied after `done` on `queue`. */
void add_launch_argument(struct launch_record *launch, cl_command_queue queue, cl_kernel kernel, cl_uint i,
                         const struct arg *a);
/* Queues the launch (or a host read, `copy` taken) for writing in program order. Call with the lock held. */
void queue_launch(struct launch_record *launch);
void queue_read(cl_mem mem, size_t offset, struct copy copy);

/* Writes every queued record whose copies are complete, in order; with `wait`, waits for all. */
void drain(int wait);

/* Sources (sources.c). A program's strings joined into one text (memory the caller frees), and its
 * content hash (64-bit FNV-1a, as `trace::substitute` computes it). */
char *joined_text(cl_uint count, const char **strings, const size_t *lengths, size_t *size);
unsigned long long content_hash(const char *text, size_t size);
/* The migrated text of a program whose text is `text` (NULL when nothing in it was migrated, or
 * outside the migrated run); `*replaced` counts the migrated files put in. */
char *substituted_source(const char *text, size_t size, int *replaced);
/* Remembers a program of the migrated run: the text it was created from, and whether substituted. */
void remember_program(cl_program program, const char *text, int replaced);
/* The options `program` is built with in this run (memory the caller frees; NULL when out of it). */
char *build_options(cl_program program, const char *options);
/* Whether the program's last build_options were the migrated run's. */
int built_as_migrated(cl_program program);

#endif

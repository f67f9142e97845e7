/* Copies of buffers taken without blocking the program, and the trace records that wait for them.
 *
 * After a launch, each buffer the kernel may write is copied by a non-blocking read enqueued right
 * behind the launch on the same queue (waiting for the launch's event, so an out-of-order queue
 * keeps the order too); a non-blocking host read or map is copied the same way. The records are
 * written to the trace in program order once their copies are complete: checked, without waiting,
 * at every OpenCL call the interceptor wraps, and waited for at exit. The one wait the interceptor
 * adds: when the copies still pending hold more than $CLASP_RUNCHECK_PENDING_MB megabytes (1024 by
 * default), the oldest are waited for before the program's call goes on. */
#include "intercept.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum arg_kind { UNSET, LOCAL_MEMORY, SCALAR, READ_ONLY, BUFFER };

struct launch_arg {
    enum arg_kind kind;
    char type[256];
    void *mem;
    size_t size;          /* LOCAL_MEMORY: its bytes; SCALAR: the value's */
    unsigned char *value; /* SCALAR */
    struct copy copy;     /* BUFFER; copy.data NULL when it could not be read */
};

struct launch_record {
    cl_event done;
    int thread;
    char name[256];
    cl_uint dims, count;
    size_t sizes[3][3];
    int given[3];
    struct launch_arg *args;
};

struct record {
    struct launch_record *launch; /* NULL for a host read */
    int thread;                   /* a host read's */
    void *mem;
    size_t offset;
    struct copy copy;
    struct record *next;
};

static struct record *head, **tail = &head;
static size_t pending_bytes;
static pthread_mutex_t drain_lock = PTHREAD_MUTEX_INITIALIZER;

/* A forked child has none of its parent's OpenCL objects: it starts with nothing pending. */
static void forget_in_child(void) {
    head = NULL;
    tail = &head;
    pending_bytes = 0;
}

__attribute__((constructor)) static void register_fork_handler(void) { pthread_atfork(NULL, NULL, forget_in_child); }

int copy_buffer(struct copy *copy, cl_command_queue queue, cl_mem mem, size_t offset, size_t size, cl_uint waits,
                const cl_event *wait_list) {
    copy->event = NULL;
    copy->size = size;
    copy->data = malloc(size ? size : 1);
    if (!copy->data) return 0;
    if (REAL(clEnqueueReadBuffer)(queue, mem, CL_FALSE, offset, size, copy->data, waits, wait_list, &copy->event) !=
        CL_SUCCESS) {
        free(copy->data);
        copy->data = NULL;
        copy->event = NULL;
        return 0;
    }
    return 1;
}

struct launch_record *begin_launch(cl_kernel kernel, cl_uint dims, const size_t *offset, const size_t *global,
                                   const size_t *local, cl_event done) {
    struct launch_record *launch = calloc(1, sizeof *launch);
    if (!launch) return NULL;
    launch->done = done;
    launch->thread = thread_ordinal();
    REAL(clRetainEvent)(done);
    REAL(clGetKernelInfo)(kernel, CL_KERNEL_FUNCTION_NAME, sizeof launch->name, launch->name, NULL);
    REAL(clGetKernelInfo)(kernel, CL_KERNEL_NUM_ARGS, sizeof launch->count, &launch->count, NULL);
    launch->dims = dims > 3 ? 3 : dims;
    const size_t *given[3] = {offset, global, local};
    for (int s = 0; s < 3; s++) {
        launch->given[s] = given[s] != NULL;
        for (cl_uint d = 0; given[s] && d < launch->dims; d++) launch->sizes[s][d] = given[s][d];
    }
    launch->args = calloc(launch->count ? launch->count : 1, sizeof *launch->args);
    if (!launch->args) {
        free(launch);
        return NULL;
    }
    return launch;
}

/* Whether argument `i` is a __global buffer the kernel may write (from the argument information
 * that the interceptor's -cl-kernel-arg-info provides; without it, every buffer object is), and
 * its type name into `type`. */
static enum arg_kind kind_of(cl_kernel kernel, cl_uint i, const struct arg *a, char *type, size_t type_size) {
    cl_kernel_arg_address_qualifier space = 0;
    cl_kernel_arg_type_qualifier qualifier = 0;
    type[0] = 0;
    if (REAL(clGetKernelArgInfo)(kernel, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof space, &space, NULL) ==
        CL_SUCCESS) {
        REAL(clGetKernelArgInfo)(kernel, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof qualifier, &qualifier, NULL);
        REAL(clGetKernelArgInfo)(kernel, i, CL_KERNEL_ARG_TYPE_NAME, type_size, type, NULL);
        if (space == CL_KERNEL_ARG_ADDRESS_GLOBAL && !(qualifier & CL_KERNEL_ARG_TYPE_CONST)) return BUFFER;
        return space == CL_KERNEL_ARG_ADDRESS_PRIVATE ? SCALAR : READ_ONLY;
    }
    cl_mem mem;
    cl_mem_object_type object;
    if (a->local || a->size != sizeof mem) return SCALAR;
    memcpy(&mem, a->value, sizeof mem);
    if (mem && REAL(clGetMemObjectInfo)(mem, CL_MEM_TYPE, sizeof object, &object, NULL) == CL_SUCCESS)
        return object == CL_MEM_OBJECT_BUFFER ? BUFFER : READ_ONLY;
    return SCALAR;
}

void add_launch_argument(struct launch_record *launch, cl_command_queue queue, cl_kernel kernel, cl_uint i,
                         const struct arg *a) {
    struct launch_arg *out = &launch->args[i];
    if (!a || !a->set) return; /* UNSET */
    if (a->local) {
        out->kind = LOCAL_MEMORY;
        out->size = a->size;
        return;
    }
    out->kind = kind_of(kernel, i, a, out->type, sizeof out->type);
    if (out->kind == SCALAR) {
        out->size = a->size;
        out->value = malloc(a->size ? a->size : 1);
        if (out->value) memcpy(out->value, a->value, a->size);
    } else if (out->kind == BUFFER) {
        cl_mem mem;
        size_t size = 0;
        memcpy(&mem, a->value, sizeof mem);
        out->mem = mem;
        if (mem) REAL(clGetMemObjectInfo)(mem, CL_MEM_SIZE, sizeof size, &size, NULL);
        if (size) copy_buffer(&out->copy, queue, mem, 0, size, 1, &launch->done);
    }
}

static int complete(cl_event event) {
    cl_int status = CL_COMPLETE;
    if (!event) return 1;
    if (REAL(clGetEventInfo)(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL) != CL_SUCCESS)
        return 1;
    return status <= CL_COMPLETE; /* done, or failed */
}

/* Whether the (complete) copy's data can be trusted. */
static int copied(struct copy *copy) {
    if (!copy->data) return 0;
    if (!copy->event) return 1;
    cl_int status = CL_COMPLETE;
    REAL(clGetEventInfo)(copy->event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
    return status == CL_COMPLETE;
}

static void wait_for(struct copy *copy) {
    if (copy->event) REAL(clWaitForEvents)(1, &copy->event);
}

static int record_complete(const struct record *r) {
    if (!r->launch) return complete(r->copy.event);
    if (!complete(r->launch->done)) return 0;
    for (cl_uint i = 0; i < r->launch->count; i++)
        if (r->launch->args[i].kind == BUFFER && !complete(r->launch->args[i].copy.event)) return 0;
    return 1;
}

static void wait_for_record(struct record *r) {
    if (!r->launch) {
        wait_for(&r->copy);
        return;
    }
    REAL(clWaitForEvents)(1, &r->launch->done);
    for (cl_uint i = 0; i < r->launch->count; i++) wait_for(&r->launch->args[i].copy);
}

static void write_sizes(FILE *f, const char *key, const struct launch_record *launch, int s) {
    fprintf(f, ",\"%s\":", key);
    if (!launch->given[s]) {
        fprintf(f, "null");
        return;
    }
    for (cl_uint d = 0; d < launch->dims; d++) fprintf(f, "%s%zu", d ? "," : "[", launch->sizes[s][d]);
    fprintf(f, "]");
}

static void write_argument(FILE *f, cl_uint i, struct launch_arg *a) {
    fprintf(f, "%s{\"i\":%u", i ? "," : "", i);
    switch (a->kind) {
    case UNSET: fprintf(f, ",\"unset\":true}"); return;
    case LOCAL_MEMORY: fprintf(f, ",\"local\":%zu}", a->size); return;
    default: break;
    }
    fprintf(f, ",\"type\":");
    write_json_string(f, a->type);
    if (a->kind == READ_ONLY) { /* its handle differs from run to run: not compared */
        fprintf(f, ",\"read_only\":true}");
    } else if (a->kind == SCALAR) {
        fprintf(f, ",\"value\":\"");
        for (size_t b = 0; a->value && b < a->size; b++) fprintf(f, "%02x", a->value[b]);
        fprintf(f, "\"}");
    } else if (copied(&a->copy)) {
        fprintf(f, ",\"mem\":\"%p\",\"size\":%zu,\"blob\":%lu}", a->mem, a->copy.size,
                write_blob(a->copy.data, a->copy.size));
    } else {
        fprintf(f, ",\"unread\":true}");
    }
}

static void write_record(FILE *f, struct record *r) {
    if (!r->launch) {
        if (copied(&r->copy))
            fprintf(f, "{\"ev\":\"read\",\"thread\":%d,\"mem\":\"%p\",\"offset\":%zu,\"size\":%zu,\"blob\":%lu}\n",
                    r->thread, r->mem, r->offset, r->copy.size, write_blob(r->copy.data, r->copy.size));
        return;
    }
    struct launch_record *launch = r->launch;
    cl_ulong start = 0, end = 0;
    if (REAL(clGetEventProfilingInfo)(launch->done, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) !=
            CL_SUCCESS ||
        REAL(clGetEventProfilingInfo)(launch->done, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) != CL_SUCCESS)
        start = end = 0;
    fprintf(f, "{\"ev\":\"launch\",\"thread\":%d,\"kernel\":", launch->thread);
    write_json_string(f, launch->name);
    fprintf(f, ",\"ns\":%llu", (unsigned long long)(end - start));
    write_sizes(f, "offset", launch, 0);
    write_sizes(f, "global", launch, 1);
    write_sizes(f, "local", launch, 2);
    fprintf(f, ",\"args\":[");
    for (cl_uint i = 0; i < launch->count; i++) write_argument(f, i, &launch->args[i]);
    fprintf(f, "]}\n");
}

static void release_copy(struct copy *copy) {
    if (copy->event) REAL(clReleaseEvent)(copy->event);
    if (copy->data) pending_bytes -= copy->size;
    free(copy->data);
}

static void free_record(struct record *r) {
    if (r->launch) {
        for (cl_uint i = 0; i < r->launch->count; i++) {
            release_copy(&r->launch->args[i].copy);
            free(r->launch->args[i].value);
        }
        REAL(clReleaseEvent)(r->launch->done);
        free(r->launch->args);
        free(r->launch);
    } else {
        release_copy(&r->copy);
    }
    free(r);
}

static size_t limit_bytes(void) {
    const char *mb = getenv("CLASP_RUNCHECK_PENDING_MB");
    return (mb && *mb ? (size_t)strtoull(mb, NULL, 10) : 1024) << 20;
}

static void enqueue_record(struct record *r) {
    r->next = NULL;
    *tail = r;
    tail = &r->next;
}

void queue_launch(struct launch_record *launch) {
    struct record *r = calloc(1, sizeof *r);
    if (!r) return;
    r->launch = launch;
    for (cl_uint i = 0; i < launch->count; i++)
        if (launch->args[i].copy.data) pending_bytes += launch->args[i].copy.size;
    enqueue_record(r);
}

void queue_read(cl_mem mem, size_t offset, struct copy copy) {
    struct record *r = calloc(1, sizeof *r);
    if (!r) return;
    r->mem = mem;
    r->thread = thread_ordinal();
    r->offset = offset;
    r->copy = copy;
    if (copy.data) pending_bytes += copy.size;
    enqueue_record(r);
}

void drain(int wait) {
    /* One drain at a time; a call that finds another under way leaves the work to it. */
    if (wait ? pthread_mutex_lock(&drain_lock) : pthread_mutex_trylock(&drain_lock)) return;
    size_t limit = limit_bytes();
    for (;;) {
        pthread_mutex_lock(&intercept_lock);
        struct record *r = head;
        int must_wait = wait || pending_bytes > limit;
        pthread_mutex_unlock(&intercept_lock);
        if (!r || (!must_wait && !record_complete(r))) break;
        /* Waiting happens outside the table's lock: a callback of the runtime may call OpenCL. */
        if (must_wait) wait_for_record(r);
        pthread_mutex_lock(&intercept_lock);
        head = r->next;
        if (!head) tail = &head;
        FILE *f = trace_file();
        if (f) {
            write_record(f, r);
            fflush(f);
        }
        free_record(r);
        pthread_mutex_unlock(&intercept_lock);
    }
    pthread_mutex_unlock(&drain_lock);
}

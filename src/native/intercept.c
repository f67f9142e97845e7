/* clasp's run-check interceptor: preloaded (LD_PRELOAD) into the user's program by `clasp
 * run-check`, it records what the program's kernels compute and, in the migrated run, replaces
 * program sources by clasp's migrated ones. Inactive (every call forwarded untouched) unless
 * $CLASP_RUNCHECK_LOG names a folder.
 *
 * Wrapped: clCreateProgramWithSource (source hash logged; replaced when $CLASP_RUNCHECK_MAP holds
 * <hash>.cl), clBuildProgram/clCompileProgram (adds -cl-kernel-arg-info; for a replaced source, its
 * -cl-std= is replaced by the map's `options` file), clCreateCommandQueue(WithProperties) (profiling
 * turned on), clSetKernelArg (arguments remembered per kernel), clEnqueueNDRangeKernel (the launch
 * logged with its device time, then every non-const __global buffer argument read back) and
 * clEnqueueReadBuffer (what the host reads logged). Everything else goes straight to the loader.
 *
 * Synchronisation added: after each launch the interceptor waits for that launch's event and reads
 * its writable buffers with blocking reads on the launch's queue; a non-blocking
 * clEnqueueReadBuffer is waited for before it returns. Nothing else.
 *
 * The real functions are found with dlsym(RTLD_NEXT), or in libOpenCL.so.1 opened here when the
 * program loaded the loader privately (Python's extension modules do). Each process (a fork too)
 * writes its own trace-<pid>.jsonl and its buffers as <pid>-<seq>.bin beside it. */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS /* clCreateCommandQueue, which 1.x hosts call */
#include <CL/cl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_ARGS 64
#define MAX_VALUE 128

static void *real_fn(const char *name) {
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        static void *loader;
        if (!loader) loader = dlopen("libOpenCL.so.1", RTLD_NOW);
        if (loader) f = dlsym(loader, name);
    }
    if (!f) {
        fprintf(stderr, "clasp interceptor: %s not found in the OpenCL loader\n", name);
        abort();
    }
    return f;
}

/* The real `name`, looked up once per call site. */
#define REAL(name)                                   \
    ({                                               \
        static void *found_;                         \
        if (!found_) found_ = real_fn(#name);        \
        (__typeof__(&name))found_;                   \
    })

struct arg {
    int set;
    size_t size;
    int local;              /* set with a NULL value: __local memory of `size` bytes */
    unsigned char value[MAX_VALUE];
};

struct kernel_args {
    cl_kernel kernel;
    struct arg args[MAX_ARGS];
    struct kernel_args *next;
};

struct replaced {
    cl_program program;
    struct replaced *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct kernel_args *kernels;
static struct replaced *replaced_programs;
static FILE *trace;
static pid_t trace_pid;
static unsigned long sequence;

static const char *log_dir(void) { return getenv("CLASP_RUNCHECK_LOG"); }

/* The trace of this process, opened on first use (again in a forked child). Call with lock held. */
static FILE *trace_file(void) {
    pid_t pid = getpid();
    if (trace && trace_pid == pid) return trace;
    char path[4096];
    snprintf(path, sizeof path, "%s/trace-%d.jsonl", log_dir(), (int)pid);
    trace = fopen(path, "ae");
    trace_pid = pid;
    sequence = 0;
    if (trace) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        fprintf(trace, "{\"ev\":\"process\",\"pid\":%d,\"t\":%lld}\n", (int)pid,
                (long long)now.tv_sec * 1000000000LL + now.tv_nsec);
        fflush(trace);
    }
    return trace;
}

/* Writes `size` bytes to <pid>-<seq>.bin and returns the sequence number. Call with lock held. */
static unsigned long write_blob(const void *data, size_t size) {
    unsigned long n = ++sequence;
    char path[4096];
    snprintf(path, sizeof path, "%s/%d-%lu.bin", log_dir(), (int)getpid(), n);
    FILE *f = fopen(path, "we");
    if (f) {
        if (size) fwrite(data, 1, size, f);
        fclose(f);
    }
    return n;
}

static uint64_t fnv1a(const unsigned char *data, size_t size, uint64_t hash) {
    for (size_t i = 0; i < size; i++) hash = (hash ^ data[i]) * 1099511628211ULL;
    return hash;
}

static char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "re");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long length = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc(length + 1);
    if (text && fread(text, 1, length, f) != (size_t)length) {
        free(text);
        text = NULL;
    }
    fclose(f);
    if (text) text[length] = 0;
    if (size) *size = length;
    return text;
}

cl_program clCreateProgramWithSource(cl_context context, cl_uint count, const char **strings,
                                     const size_t *lengths, cl_int *error) {
    if (!log_dir()) return REAL(clCreateProgramWithSource)(context, count, strings, lengths, error);
    uint64_t hash = 14695981039346656037ULL;
    for (cl_uint i = 0; i < count; i++) {
        size_t n = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
        hash = fnv1a((const unsigned char *)strings[i], n, hash);
    }
    char *migrated = NULL;
    const char *map = getenv("CLASP_RUNCHECK_MAP");
    if (map) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%016llx.cl", map, (unsigned long long)hash);
        migrated = read_file(path, NULL);
    }
    cl_program program;
    if (migrated) {
        const char *one[1] = {migrated};
        program = REAL(clCreateProgramWithSource)(context, 1, one, NULL, error);
        free(migrated);
    } else {
        program = REAL(clCreateProgramWithSource)(context, count, strings, lengths, error);
    }
    pthread_mutex_lock(&lock);
    if (migrated && program) {
        struct replaced *r = malloc(sizeof *r);
        if (r) {
            r->program = program;
            r->next = replaced_programs;
            replaced_programs = r;
        }
    }
    FILE *f = trace_file();
    if (f) {
        fprintf(f, "{\"ev\":\"source\",\"hash\":\"%016llx\",\"replaced\":%s}\n", (unsigned long long)hash,
                migrated ? "true" : "false");
        fflush(f);
    }
    pthread_mutex_unlock(&lock);
    return program;
}

/* The options a build gets: the program's own plus -cl-kernel-arg-info (so that arguments can be
 * told apart), and for a replaced source its -cl-std= words blanked and the map's options added. */
static char *build_options(cl_program program, const char *options) {
    int is_replaced = 0;
    pthread_mutex_lock(&lock);
    for (struct replaced *r = replaced_programs; r; r = r->next) is_replaced |= r->program == program;
    pthread_mutex_unlock(&lock);
    char *extra = NULL;
    if (is_replaced) {
        char path[4096];
        snprintf(path, sizeof path, "%s/options", getenv("CLASP_RUNCHECK_MAP"));
        extra = read_file(path, NULL);
    }
    const char *own = options ? options : "";
    size_t size = strlen(own) + (extra ? strlen(extra) : 0) + 32;
    char *out = malloc(size);
    if (!out) return NULL;
    strcpy(out, own);
    if (is_replaced) {
        for (char *p = strstr(out, "-cl-std="); p; p = strstr(p, "-cl-std=")) {
            if (p != out && p[-1] != ' ' && p[-1] != '\t') {
                p++;
                continue;
            }
            while (*p && *p != ' ' && *p != '\t') *p++ = ' ';
        }
    }
    strcat(out, " -cl-kernel-arg-info");
    if (extra) {
        strcat(out, " ");
        strcat(out, extra);
        free(extra);
    }
    return out;
}

cl_int clBuildProgram(cl_program program, cl_uint count, const cl_device_id *devices, const char *options,
                      void(CL_CALLBACK *notify)(cl_program, void *), void *data) {
    if (!log_dir()) return REAL(clBuildProgram)(program, count, devices, options, notify, data);
    char *own = build_options(program, options);
    cl_int status = REAL(clBuildProgram)(program, count, devices, own ? own : options, notify, data);
    free(own);
    return status;
}

cl_int clCompileProgram(cl_program program, cl_uint count, const cl_device_id *devices, const char *options,
                        cl_uint headers, const cl_program *header_programs, const char **header_names,
                        void(CL_CALLBACK *notify)(cl_program, void *), void *data) {
    if (!log_dir())
        return REAL(clCompileProgram)(program, count, devices, options, headers, header_programs, header_names,
                                      notify, data);
    char *own = build_options(program, options);
    cl_int status = REAL(clCompileProgram)(program, count, devices, own ? own : options, headers, header_programs,
                                           header_names, notify, data);
    free(own);
    return status;
}

cl_command_queue clCreateCommandQueue(cl_context context, cl_device_id device, cl_command_queue_properties properties,
                                      cl_int *error) {
    if (log_dir()) properties |= CL_QUEUE_PROFILING_ENABLE;
    return REAL(clCreateCommandQueue)(context, device, properties, error);
}

cl_command_queue clCreateCommandQueueWithProperties(cl_context context, cl_device_id device,
                                                    const cl_queue_properties *properties, cl_int *error) {
    if (!log_dir()) return REAL(clCreateCommandQueueWithProperties)(context, device, properties, error);
    cl_queue_properties own[66];
    int n = 0, found = 0;
    for (int i = 0; properties && properties[i] && n < 62; i += 2) {
        own[n++] = properties[i];
        own[n++] = properties[i + 1] | (properties[i] == CL_QUEUE_PROPERTIES ? CL_QUEUE_PROFILING_ENABLE : 0);
        found |= properties[i] == CL_QUEUE_PROPERTIES;
    }
    if (!found) {
        own[n++] = CL_QUEUE_PROPERTIES;
        own[n++] = CL_QUEUE_PROFILING_ENABLE;
    }
    own[n] = 0;
    return REAL(clCreateCommandQueueWithProperties)(context, device, own, error);
}

/* The remembered arguments of `kernel`, made on first use. Call with lock held. */
static struct kernel_args *args_of(cl_kernel kernel) {
    for (struct kernel_args *k = kernels; k; k = k->next)
        if (k->kernel == kernel) return k;
    struct kernel_args *k = calloc(1, sizeof *k);
    if (!k) return NULL;
    k->kernel = kernel;
    k->next = kernels;
    kernels = k;
    return k;
}

cl_int clSetKernelArg(cl_kernel kernel, cl_uint index, size_t size, const void *value) {
    cl_int status = REAL(clSetKernelArg)(kernel, index, size, value);
    if (!log_dir() || status != CL_SUCCESS || index >= MAX_ARGS) return status;
    pthread_mutex_lock(&lock);
    struct kernel_args *k = args_of(kernel);
    if (k) {
        struct arg *a = &k->args[index];
        a->set = 1;
        a->size = size;
        a->local = value == NULL;
        memset(a->value, 0, MAX_VALUE);
        if (value) memcpy(a->value, value, size < MAX_VALUE ? size : MAX_VALUE);
    }
    pthread_mutex_unlock(&lock);
    return status;
}

static void print_sizes(FILE *f, const char *key, cl_uint dims, const size_t *sizes) {
    fprintf(f, ",\"%s\":", key);
    if (!sizes) {
        fprintf(f, "null");
        return;
    }
    for (cl_uint d = 0; d < dims; d++) fprintf(f, "%s%zu", d ? "," : "[", sizes[d]);
    fprintf(f, "]");
}

enum arg_kind { SCALAR, WRITABLE_BUFFER, READ_ONLY_POINTER };

/* What argument `i` is (a __global buffer the kernel may write, another pointer, a scalar); its
 * type name into `type`. */
static enum arg_kind kind_of(cl_kernel kernel, cl_uint i, const struct arg *a, char *type, size_t type_size) {
    cl_kernel_arg_address_qualifier space = 0;
    cl_kernel_arg_type_qualifier qualifier = 0;
    type[0] = 0;
    if (REAL(clGetKernelArgInfo)(kernel, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof space, &space, NULL) ==
        CL_SUCCESS) {
        REAL(clGetKernelArgInfo)(kernel, i, CL_KERNEL_ARG_TYPE_QUALIFIER, sizeof qualifier, &qualifier, NULL);
        REAL(clGetKernelArgInfo)(kernel, i, CL_KERNEL_ARG_TYPE_NAME, type_size, type, NULL);
        if (space == CL_KERNEL_ARG_ADDRESS_GLOBAL && !(qualifier & CL_KERNEL_ARG_TYPE_CONST)) return WRITABLE_BUFFER;
        return space == CL_KERNEL_ARG_ADDRESS_PRIVATE ? SCALAR : READ_ONLY_POINTER;
    }
    /* No argument information: every argument that is a buffer object. */
    cl_mem mem;
    cl_mem_object_type kind;
    if (a->local || a->size != sizeof mem) return SCALAR;
    memcpy(&mem, a->value, sizeof mem);
    if (mem && REAL(clGetMemObjectInfo)(mem, CL_MEM_TYPE, sizeof kind, &kind, NULL) == CL_SUCCESS)
        return kind == CL_MEM_OBJECT_BUFFER ? WRITABLE_BUFFER : READ_ONLY_POINTER;
    return SCALAR;
}

/* Logs one argument of a finished launch, reading a writable buffer back (a blocking read). */
static void log_arg(FILE *f, cl_command_queue queue, cl_kernel kernel, cl_uint i, const struct arg *a) {
    char type[256];
    fprintf(f, "%s{\"i\":%u", i ? "," : "", i);
    if (!a->set) {
        fprintf(f, ",\"unset\":true}");
        return;
    }
    enum arg_kind kind = kind_of(kernel, i, a, type, sizeof type);
    if (kind == WRITABLE_BUFFER) {
        cl_mem mem;
        size_t size = 0;
        memcpy(&mem, a->value, sizeof mem);
        if (mem) REAL(clGetMemObjectInfo)(mem, CL_MEM_SIZE, sizeof size, &size, NULL);
        void *data = size ? malloc(size) : NULL;
        if (data && REAL(clEnqueueReadBuffer)(queue, mem, CL_TRUE, 0, size, data, 0, NULL, NULL) == CL_SUCCESS) {
            fprintf(f, ",\"type\":\"%s\",\"mem\":\"%p\",\"size\":%zu,\"blob\":%lu}", type, (void *)mem, size,
                    write_blob(data, size));
        } else {
            fprintf(f, ",\"type\":\"%s\",\"unread\":true}", type);
        }
        free(data);
        return;
    }
    if (a->local) {
        fprintf(f, ",\"local\":%zu}", a->size);
        return;
    }
    if (kind == READ_ONLY_POINTER) { /* its handle differs from run to run: not compared */
        fprintf(f, ",\"type\":\"%s\",\"read_only\":true}", type);
        return;
    }
    /* A scalar: its bytes as hex. */
    fprintf(f, ",\"value\":\"");
    for (size_t b = 0; b < a->size && b < MAX_VALUE; b++) fprintf(f, "%02x", a->value[b]);
    fprintf(f, "\"}");
}

static void log_launch(cl_command_queue queue, cl_kernel kernel, cl_uint dims, const size_t *offset,
                       const size_t *global, const size_t *local, cl_event event) {
    char name[256] = "";
    cl_uint count = 0;
    cl_ulong start = 0, end = 0;
    REAL(clGetKernelInfo)(kernel, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
    REAL(clGetKernelInfo)(kernel, CL_KERNEL_NUM_ARGS, sizeof count, &count, NULL);
    if (REAL(clGetEventProfilingInfo)(event, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL) != CL_SUCCESS ||
        REAL(clGetEventProfilingInfo)(event, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL) != CL_SUCCESS)
        start = end = 0;
    pthread_mutex_lock(&lock);
    FILE *f = trace_file();
    struct kernel_args *k = args_of(kernel);
    if (f && k) {
        fprintf(f, "{\"ev\":\"launch\",\"kernel\":\"%s\",\"ns\":%llu", name, (unsigned long long)(end - start));
        print_sizes(f, "offset", dims, offset);
        print_sizes(f, "global", dims, global);
        print_sizes(f, "local", dims, local);
        fprintf(f, ",\"args\":[");
        for (cl_uint i = 0; i < count && i < MAX_ARGS; i++) log_arg(f, queue, kernel, i, &k->args[i]);
        fprintf(f, "]}\n");
        fflush(f);
    }
    pthread_mutex_unlock(&lock);
}

cl_int clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint dims, const size_t *offset,
                              const size_t *global, const size_t *local, cl_uint waits, const cl_event *wait_list,
                              cl_event *event) {
    if (!log_dir())
        return REAL(clEnqueueNDRangeKernel)(queue, kernel, dims, offset, global, local, waits, wait_list, event);
    cl_event own = NULL;
    cl_int status = REAL(clEnqueueNDRangeKernel)(queue, kernel, dims, offset, global, local, waits, wait_list, &own);
    if (status != CL_SUCCESS) return status;
    if (REAL(clWaitForEvents)(1, &own) == CL_SUCCESS) log_launch(queue, kernel, dims, offset, global, local, own);
    if (event)
        *event = own;
    else
        REAL(clReleaseEvent)(own);
    return status;
}

cl_int clEnqueueReadBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset, size_t size,
                           void *ptr, cl_uint waits, const cl_event *wait_list, cl_event *event) {
    if (!log_dir())
        return REAL(clEnqueueReadBuffer)(queue, buffer, blocking, offset, size, ptr, waits, wait_list, event);
    cl_event own = NULL;
    cl_int status = REAL(clEnqueueReadBuffer)(queue, buffer, blocking, offset, size, ptr, waits, wait_list, &own);
    if (status != CL_SUCCESS) return status;
    if (REAL(clWaitForEvents)(1, &own) == CL_SUCCESS) {
        pthread_mutex_lock(&lock);
        FILE *f = trace_file();
        if (f) {
            fprintf(f, "{\"ev\":\"read\",\"mem\":\"%p\",\"offset\":%zu,\"size\":%zu,\"blob\":%lu}\n", (void *)buffer,
                    offset, size, write_blob(ptr, size));
            fflush(f);
        }
        pthread_mutex_unlock(&lock);
    }
    if (event)
        *event = own;
    else
        REAL(clReleaseEvent)(own);
    return status;
}

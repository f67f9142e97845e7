/* The interceptor's state: the loader's real functions, this process's trace file and buffer
 * files, and the arguments each kernel was last given. */
#include "intercept.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

pthread_mutex_t intercept_lock = PTHREAD_MUTEX_INITIALIZER;

/* The function from the next library that defines it (the loader the program linked), or from
 * libOpenCL.so.1 opened here when the program loaded the loader privately (Python's extension
 * modules do). */
void *real_fn(const char *name) {
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

const char *log_dir(void) { return getenv("CLASP_RUNCHECK_LOG"); }

static FILE *trace;
static pid_t trace_pid;
static unsigned long sequence;

/* At exit, the copies still pending are waited for and written: the program's own handlers and
 * the loader's destructors run later, so the runtime is still there. */
static void finish_at_exit(void) { drain(1); }

int thread_ordinal(void) {
    static __thread int ordinal = -1;
    static int threads;
    if (ordinal < 0) ordinal = __atomic_fetch_add(&threads, 1, __ATOMIC_RELAXED);
    return ordinal;
}

/* The process's command line, its arguments joined by spaces (so that the runs' processes can be
 * paired by what they are, not by when they started). */
static void write_command_line(FILE *f) {
    char text[4096];
    FILE *cmdline = fopen("/proc/self/cmdline", "re");
    size_t n = cmdline ? fread(text, 1, sizeof text - 1, cmdline) : 0;
    if (cmdline) fclose(cmdline);
    for (size_t i = 0; i + 1 < n; i++)
        if (!text[i]) text[i] = ' ';
    text[n] = 0;
    write_json_string(f, text);
}

FILE *trace_file(void) {
    pid_t pid = getpid();
    if (trace && trace_pid == pid) return trace;
    if (!trace_pid) atexit(finish_at_exit);
    char path[4096];
    snprintf(path, sizeof path, "%s/trace-%d.jsonl", log_dir(), (int)pid);
    trace = fopen(path, "ae");
    trace_pid = pid;
    sequence = 0;
    if (trace) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        fprintf(trace, "{\"ev\":\"process\",\"pid\":%d,\"t\":%lld,\"cmd\":", (int)pid,
                (long long)now.tv_sec * 1000000000LL + now.tv_nsec);
        write_command_line(trace);
        fprintf(trace, "}\n");
        fflush(trace);
    }
    return trace;
}

unsigned long write_blob(const void *data, size_t size) {
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

void write_json_string(FILE *f, const char *text) {
    fputc('"', f);
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(f, "\\%c", *c);
        else if (*c < 0x20)
            fprintf(f, "\\u%04x", *c);
        else
            fputc(*c, f);
    }
    fputc('"', f);
}

struct kernel_args {
    cl_kernel kernel;
    cl_uint count;
    struct arg *args;
    struct kernel_args *next;
};

static struct kernel_args *kernels;

struct arg *arguments_of(cl_kernel kernel, cl_uint count) {
    struct kernel_args *k = kernels;
    while (k && k->kernel != kernel) k = k->next;
    if (!k) {
        k = calloc(1, sizeof *k);
        if (!k) return NULL;
        k->kernel = kernel;
        k->next = kernels;
        kernels = k;
    }
    if (count > k->count) {
        struct arg *grown = realloc(k->args, count * sizeof *grown);
        if (!grown) return NULL;
        memset(grown + k->count, 0, (count - k->count) * sizeof *grown);
        k->args = grown;
        k->count = count;
    }
    return k->args;
}

void forget_kernel(cl_kernel kernel) {
    for (struct kernel_args **link = &kernels; *link; link = &(*link)->next) {
        struct kernel_args *k = *link;
        if (k->kernel != kernel) continue;
        *link = k->next;
        for (cl_uint i = 0; i < k->count; i++) free(k->args[i].value);
        free(k->args);
        free(k);
        return;
    }
}

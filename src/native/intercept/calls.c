/* The OpenCL entry points the interceptor wraps; every other one goes straight to the loader.
 *
 * clCreateProgramWithSource: the text's hash logged; in the migrated run, migrated files put in
 * (sources.c). clBuildProgram/clCompileProgram: options from sources.c. Queue creation: profiling
 * turned on. clSetKernelArg: arguments remembered per kernel, forgotten at the kernel's last
 * release. clEnqueueNDRangeKernel/clEnqueueTask: the launch recorded with a copy of every buffer
 * the kernel may write (pending.c). clEnqueueReadBuffer(Rect)/clEnqueueMapBuffer for reading: what
 * the host reads recorded, copied from the host's memory after a blocking call, or by a copy
 * enqueued just before a non-blocking one with the same wait list (it sees what the host's command
 * sees, and never touches a mapped region). Each wrapped call first writes the records whose
 * copies are complete, without waiting. */
#include "intercept.h"

#include <stdlib.h>
#include <string.h>

cl_program clCreateProgramWithSource(cl_context context, cl_uint count, const char **strings,
                                     const size_t *lengths, cl_int *error) {
    if (!log_dir()) return REAL(clCreateProgramWithSource)(context, count, strings, lengths, error);
    drain(0);
    size_t size;
    char *text = joined_text(count, strings, lengths, &size);
    int replaced;
    char *migrated = substituted_source(text, size, &replaced);
    cl_program program;
    if (migrated) {
        const char *one[1] = {migrated};
        program = REAL(clCreateProgramWithSource)(context, 1, one, NULL, error);
    } else {
        program = REAL(clCreateProgramWithSource)(context, count, strings, lengths, error);
    }
    if (program && text) remember_program(program, migrated ? migrated : text, replaced);
    pthread_mutex_lock(&intercept_lock);
    FILE *f = trace_file();
    if (f) {
        fprintf(f, "{\"ev\":\"source\",\"hash\":\"%016llx\",\"replaced\":%s,\"files\":%d}\n", content_hash(text, size),
                migrated ? "true" : "false", replaced);
        fflush(f);
    }
    pthread_mutex_unlock(&intercept_lock);
    free(migrated);
    free(text);
    return program;
}

/* A build that failed, logged with the end of each device's build log (a program that prints the
 * log where run-check cannot see it, or not at all, still has it reported). */
static void log_failed_build(cl_program program, cl_int status) {
    cl_uint count = 0;
    cl_device_id devices[8];
    if (REAL(clGetProgramInfo)(program, CL_PROGRAM_NUM_DEVICES, sizeof count, &count, NULL) != CL_SUCCESS) count = 0;
    if (count > 8) count = 8;
    if (count) REAL(clGetProgramInfo)(program, CL_PROGRAM_DEVICES, count * sizeof *devices, devices, NULL);
    int migrated = built_as_migrated(program);
    pthread_mutex_lock(&intercept_lock);
    FILE *f = trace_file();
    if (f) {
        fprintf(f, "{\"ev\":\"build\",\"status\":%d,\"migrated\":%s,\"log\":", status,
                migrated ? "true" : "false");
        char *text = NULL;
        size_t size = 0;
        for (cl_uint d = 0; d < count && !size; d++) {
            if (REAL(clGetProgramBuildInfo)(program, devices[d], CL_PROGRAM_BUILD_LOG, 0, NULL, &size) != CL_SUCCESS ||
                size <= 1 || !(text = malloc(size + 1)) ||
                REAL(clGetProgramBuildInfo)(program, devices[d], CL_PROGRAM_BUILD_LOG, size, text, NULL) != CL_SUCCESS) {
                free(text);
                text = NULL;
                size = 0;
            }
        }
        if (text) text[size] = 0;
        /* The end of the log, where the errors that stopped the build are. */
        write_json_string(f, text ? text + (size > 4000 ? size - 4000 : 0) : "");
        free(text);
        fprintf(f, "}\n");
        fflush(f);
    }
    pthread_mutex_unlock(&intercept_lock);
}

cl_int clBuildProgram(cl_program program, cl_uint count, const cl_device_id *devices, const char *options,
                      void(CL_CALLBACK *notify)(cl_program, void *), void *data) {
    if (!log_dir()) return REAL(clBuildProgram)(program, count, devices, options, notify, data);
    drain(0);
    char *own = build_options(program, options);
    cl_int status = REAL(clBuildProgram)(program, count, devices, own ? own : options, notify, data);
    free(own);
    if (status != CL_SUCCESS) log_failed_build(program, status);
    return status;
}

cl_int clCompileProgram(cl_program program, cl_uint count, const cl_device_id *devices, const char *options,
                        cl_uint headers, const cl_program *header_programs, const char **header_names,
                        void(CL_CALLBACK *notify)(cl_program, void *), void *data) {
    if (!log_dir())
        return REAL(clCompileProgram)(program, count, devices, options, headers, header_programs, header_names,
                                      notify, data);
    drain(0);
    char *own = build_options(program, options);
    cl_int status = REAL(clCompileProgram)(program, count, devices, own ? own : options, headers, header_programs,
                                           header_names, notify, data);
    free(own);
    if (status != CL_SUCCESS) log_failed_build(program, status);
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

cl_int clSetKernelArg(cl_kernel kernel, cl_uint index, size_t size, const void *value) {
    cl_int status = REAL(clSetKernelArg)(kernel, index, size, value);
    if (!log_dir() || status != CL_SUCCESS) return status;
    unsigned char *copy = value ? malloc(size ? size : 1) : NULL;
    if (value && !copy) return status;
    if (copy) memcpy(copy, value, size);
    pthread_mutex_lock(&intercept_lock);
    struct arg *args = arguments_of(kernel, index + 1);
    if (args) {
        free(args[index].value);
        args[index] = (struct arg){.set = 1, .size = size, .local = value == NULL, .value = copy};
    } else {
        free(copy);
    }
    pthread_mutex_unlock(&intercept_lock);
    return status;
}

cl_int clReleaseKernel(cl_kernel kernel) {
    cl_uint references = 0;
    if (log_dir()) REAL(clGetKernelInfo)(kernel, CL_KERNEL_REFERENCE_COUNT, sizeof references, &references, NULL);
    cl_int status = REAL(clReleaseKernel)(kernel);
    if (status == CL_SUCCESS && references == 1) {
        pthread_mutex_lock(&intercept_lock);
        forget_kernel(kernel);
        pthread_mutex_unlock(&intercept_lock);
    }
    return status;
}

/* The wrapped commands that run kernels and read buffers back (see calls.c for what each records).
 * The program gets the events it asked for; the interceptor keeps its own references. */
#include "intercept.h"

#include <stdlib.h>
#include <string.h>

/* Records a launch that was just enqueued with event `done`. */
static void record_launch(cl_command_queue queue, cl_kernel kernel, cl_uint dims, const size_t *offset,
                          const size_t *global, const size_t *local, cl_event done) {
    struct launch_record *launch = begin_launch(kernel, dims, offset, global, local, done);
    if (!launch) return;
    cl_uint count = 0;
    REAL(clGetKernelInfo)(kernel, CL_KERNEL_NUM_ARGS, sizeof count, &count, NULL);
    pthread_mutex_lock(&intercept_lock);
    struct arg *args = arguments_of(kernel, count);
    for (cl_uint i = 0; i < count; i++) add_launch_argument(launch, queue, kernel, i, args ? &args[i] : NULL);
    queue_launch(launch);
    pthread_mutex_unlock(&intercept_lock);
}

/* Hands the program the event it asked for, or lets it go. */
static void hand_over(cl_event own, cl_event *event) {
    if (event)
        *event = own;
    else
        REAL(clReleaseEvent)(own);
}

cl_int clEnqueueNDRangeKernel(cl_command_queue queue, cl_kernel kernel, cl_uint dims, const size_t *offset,
                              const size_t *global, const size_t *local, cl_uint waits, const cl_event *wait_list,
                              cl_event *event) {
    if (!log_dir())
        return REAL(clEnqueueNDRangeKernel)(queue, kernel, dims, offset, global, local, waits, wait_list, event);
    drain(0);
    cl_event own = NULL;
    cl_int status = REAL(clEnqueueNDRangeKernel)(queue, kernel, dims, offset, global, local, waits, wait_list, &own);
    if (status != CL_SUCCESS) return status;
    record_launch(queue, kernel, dims, offset, global, local, own);
    hand_over(own, event);
    return status;
}

cl_int clEnqueueTask(cl_command_queue queue, cl_kernel kernel, cl_uint waits, const cl_event *wait_list,
                     cl_event *event) {
    if (!log_dir()) return REAL(clEnqueueTask)(queue, kernel, waits, wait_list, event);
    drain(0);
    cl_event own = NULL;
    cl_int status = REAL(clEnqueueTask)(queue, kernel, waits, wait_list, &own);
    if (status != CL_SUCCESS) return status;
    size_t one = 1;
    record_launch(queue, kernel, 1, NULL, &one, &one, own);
    hand_over(own, event);
    return status;
}

/* A copy of what a host read sees: taken from `seen` once a blocking command returned, or (for a
 * non-blocking one, `seen` NULL) enqueued before it with the same wait list. */
static struct copy host_copy(cl_command_queue queue, cl_mem buffer, size_t offset, size_t size, const void *seen,
                             cl_uint waits, const cl_event *wait_list) {
    struct copy copy = {NULL, NULL, size};
    if (!seen) {
        copy_buffer(&copy, queue, buffer, offset, size, waits, wait_list);
        return copy;
    }
    copy.data = malloc(size ? size : 1);
    if (copy.data) memcpy(copy.data, seen, size);
    return copy;
}

static void record_read(cl_mem buffer, size_t offset, struct copy copy) {
    pthread_mutex_lock(&intercept_lock);
    queue_read(buffer, offset, copy);
    pthread_mutex_unlock(&intercept_lock);
}

cl_int clEnqueueReadBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset, size_t size,
                           void *ptr, cl_uint waits, const cl_event *wait_list, cl_event *event) {
    if (!log_dir())
        return REAL(clEnqueueReadBuffer)(queue, buffer, blocking, offset, size, ptr, waits, wait_list, event);
    drain(0);
    struct copy copy = {0};
    if (!blocking) copy = host_copy(queue, buffer, offset, size, NULL, waits, wait_list);
    cl_int status = REAL(clEnqueueReadBuffer)(queue, buffer, blocking, offset, size, ptr, waits, wait_list, event);
    if (status == CL_SUCCESS && blocking) copy = host_copy(queue, buffer, offset, size, ptr, 0, NULL);
    if (status == CL_SUCCESS || copy.event) record_read(buffer, offset, copy);
    return status;
}

void *clEnqueueMapBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, cl_map_flags flags, size_t offset,
                         size_t size, cl_uint waits, const cl_event *wait_list, cl_event *event, cl_int *error) {
    int reads = (flags & CL_MAP_READ) != 0;
    if (!log_dir() || !reads)
        return REAL(clEnqueueMapBuffer)(queue, buffer, blocking, flags, offset, size, waits, wait_list, event, error);
    drain(0);
    struct copy copy = {0};
    if (!blocking) copy = host_copy(queue, buffer, offset, size, NULL, waits, wait_list);
    cl_int status = CL_SUCCESS;
    void *mapped = REAL(clEnqueueMapBuffer)(queue, buffer, blocking, flags, offset, size, waits, wait_list, event,
                                            &status);
    if (error) *error = status;
    if (status == CL_SUCCESS && blocking) copy = host_copy(queue, buffer, offset, size, mapped, 0, NULL);
    if (status == CL_SUCCESS || copy.event) record_read(buffer, offset, copy);
    return mapped;
}

/* A rectangular read is copied packed (rows of region[0] bytes), always by a read enqueued before
 * the host's, so the host's pitches need not be followed through its memory. */
cl_int clEnqueueReadBufferRect(cl_command_queue queue, cl_mem buffer, cl_bool blocking, const size_t *buffer_origin,
                               const size_t *host_origin, const size_t *region, size_t buffer_row_pitch,
                               size_t buffer_slice_pitch, size_t host_row_pitch, size_t host_slice_pitch, void *ptr,
                               cl_uint waits, const cl_event *wait_list, cl_event *event) {
    if (!log_dir())
        return REAL(clEnqueueReadBufferRect)(queue, buffer, blocking, buffer_origin, host_origin, region,
                                             buffer_row_pitch, buffer_slice_pitch, host_row_pitch, host_slice_pitch,
                                             ptr, waits, wait_list, event);
    drain(0);
    const size_t packed_origin[3] = {0, 0, 0};
    struct copy copy = {NULL, NULL, region[0] * region[1] * region[2]};
    copy.data = malloc(copy.size ? copy.size : 1);
    if (copy.data && REAL(clEnqueueReadBufferRect)(queue, buffer, CL_FALSE, buffer_origin, packed_origin, region,
                                                   buffer_row_pitch, buffer_slice_pitch, region[0],
                                                   region[0] * region[1], copy.data, waits, wait_list,
                                                   &copy.event) != CL_SUCCESS) {
        free(copy.data);
        copy.data = NULL;
    }
    cl_int status =
        REAL(clEnqueueReadBufferRect)(queue, buffer, blocking, buffer_origin, host_origin, region, buffer_row_pitch,
                                      buffer_slice_pitch, host_row_pitch, host_slice_pitch, ptr, waits, wait_list, event);
    if (status == CL_SUCCESS || copy.event) record_read(buffer, buffer_origin[0], copy);
    return status;
}

/* After the program waited, the records it waited for are written. */
cl_int clFinish(cl_command_queue queue) {
    cl_int status = REAL(clFinish)(queue);
    if (log_dir()) drain(0);
    return status;
}

cl_int clWaitForEvents(cl_uint count, const cl_event *events) {
    cl_int status = REAL(clWaitForEvents)(count, events);
    if (log_dir()) drain(0);
    return status;
}

/* Error codes, OpenCL status names and error reports. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hetune/error.h"
#include "util/util.h"

const char *ht_strerror(int code)
{
    switch (code) {
#define HT__ERRNO_DESC(name, value, desc) \
    case (value):                         \
        return desc;
        HT_ERRNO_MAP(HT__ERRNO_DESC)
#undef HT__ERRNO_DESC
    default:
        return "unknown error";
    }
}

const char *ht_err_name(int code)
{
    switch (code) {
#define HT__ERRNO_NAME(name, value, desc) \
    case (value):                         \
        return "HT_E" #name;
        HT_ERRNO_MAP(HT__ERRNO_NAME)
#undef HT__ERRNO_NAME
    default:
        return "HT_EUNKNOWN";
    }
}

/* The status codes of OpenCL 1.0-3.0 (cl.h), by value, so this file needs no OpenCL. */
#define HT__CL_STATUS_MAP(X)                                                     \
    X(0, CL_SUCCESS) X(-1, CL_DEVICE_NOT_FOUND) X(-2, CL_DEVICE_NOT_AVAILABLE)   \
    X(-3, CL_COMPILER_NOT_AVAILABLE) X(-4, CL_MEM_OBJECT_ALLOCATION_FAILURE)     \
    X(-5, CL_OUT_OF_RESOURCES) X(-6, CL_OUT_OF_HOST_MEMORY)                      \
    X(-7, CL_PROFILING_INFO_NOT_AVAILABLE) X(-8, CL_MEM_COPY_OVERLAP)            \
    X(-9, CL_IMAGE_FORMAT_MISMATCH) X(-10, CL_IMAGE_FORMAT_NOT_SUPPORTED)        \
    X(-11, CL_BUILD_PROGRAM_FAILURE) X(-12, CL_MAP_FAILURE)                      \
    X(-13, CL_MISALIGNED_SUB_BUFFER_OFFSET)                                      \
    X(-14, CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)                         \
    X(-15, CL_COMPILE_PROGRAM_FAILURE) X(-16, CL_LINKER_NOT_AVAILABLE)           \
    X(-17, CL_LINK_PROGRAM_FAILURE) X(-18, CL_DEVICE_PARTITION_FAILED)           \
    X(-19, CL_KERNEL_ARG_INFO_NOT_AVAILABLE)                                     \
    X(-30, CL_INVALID_VALUE) X(-31, CL_INVALID_DEVICE_TYPE)                      \
    X(-32, CL_INVALID_PLATFORM) X(-33, CL_INVALID_DEVICE)                        \
    X(-34, CL_INVALID_CONTEXT) X(-35, CL_INVALID_QUEUE_PROPERTIES)               \
    X(-36, CL_INVALID_COMMAND_QUEUE) X(-37, CL_INVALID_HOST_PTR)                 \
    X(-38, CL_INVALID_MEM_OBJECT) X(-39, CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)     \
    X(-40, CL_INVALID_IMAGE_SIZE) X(-41, CL_INVALID_SAMPLER)                     \
    X(-42, CL_INVALID_BINARY) X(-43, CL_INVALID_BUILD_OPTIONS)                   \
    X(-44, CL_INVALID_PROGRAM) X(-45, CL_INVALID_PROGRAM_EXECUTABLE)             \
    X(-46, CL_INVALID_KERNEL_NAME) X(-47, CL_INVALID_KERNEL_DEFINITION)          \
    X(-48, CL_INVALID_KERNEL) X(-49, CL_INVALID_ARG_INDEX)                       \
    X(-50, CL_INVALID_ARG_VALUE) X(-51, CL_INVALID_ARG_SIZE)                     \
    X(-52, CL_INVALID_KERNEL_ARGS) X(-53, CL_INVALID_WORK_DIMENSION)             \
    X(-54, CL_INVALID_WORK_GROUP_SIZE) X(-55, CL_INVALID_WORK_ITEM_SIZE)         \
    X(-56, CL_INVALID_GLOBAL_OFFSET) X(-57, CL_INVALID_EVENT_WAIT_LIST)          \
    X(-58, CL_INVALID_EVENT) X(-59, CL_INVALID_OPERATION)                        \
    X(-60, CL_INVALID_GL_OBJECT) X(-61, CL_INVALID_BUFFER_SIZE)                  \
    X(-62, CL_INVALID_MIP_LEVEL) X(-63, CL_INVALID_GLOBAL_WORK_SIZE)             \
    X(-64, CL_INVALID_PROPERTY) X(-65, CL_INVALID_IMAGE_DESCRIPTOR)              \
    X(-66, CL_INVALID_COMPILER_OPTIONS) X(-67, CL_INVALID_LINKER_OPTIONS)        \
    X(-68, CL_INVALID_DEVICE_PARTITION_COUNT) X(-69, CL_INVALID_PIPE_SIZE)       \
    X(-70, CL_INVALID_DEVICE_QUEUE) X(-71, CL_INVALID_SPEC_ID)                   \
    X(-72, CL_MAX_SIZE_RESTRICTION_EXCEEDED) X(-1001, CL_PLATFORM_NOT_FOUND_KHR)

const char *ht__cl_err_name(int cl_status)
{
    static _Thread_local char unknown[48];
    switch (cl_status) {
#define HT__CL_CASE(value, name) \
    case (value):                \
        return #name;
        HT__CL_STATUS_MAP(HT__CL_CASE)
#undef HT__CL_CASE
    default:
        snprintf(unknown, sizeof unknown, "CL_UNKNOWN_ERROR(%d)", cl_status);
        return unknown;
    }
}

int ht__cl_fail(struct ht_error *err, int code, int cl_status, const char *what)
{
    ht__log(HT_LOG_INFO, "%s failed: %s (%d)", what, ht__cl_err_name(cl_status), cl_status);
    if (err && !err->code)
        err->cl_status = cl_status;
    return ht_error_set(err, code, "%s failed: %s", what, ht__cl_err_name(cl_status));
}

void ht_error_clear(struct ht_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
}

int ht_error_set(struct ht_error *err, int code, const char *fmt, ...)
{
    va_list ap;

    if (!err || err->code != 0)
        return code;
    err->code = code;
    va_start(ap, fmt);
    vsnprintf(err->text, sizeof err->text, fmt, ap);
    va_end(ap);
    return code;
}

int ht_error_format(const struct ht_error *err, char *buf, size_t size)
{
    char loc[600] = "";
    int n = 0;

    if (err->file[0]) {
        if (err->line > 0 && err->column > 0)
            n = snprintf(loc, sizeof loc, "%s:%d:%d: ", err->file, err->line, err->column);
        else if (err->line > 0)
            n = snprintf(loc, sizeof loc, "%s:%d: ", err->file, err->line);
        else
            n = snprintf(loc, sizeof loc, "%s: ", err->file);
    } else if (err->column > 0) {
        n = snprintf(loc, sizeof loc, "column %d: ", err->column);
    }
    (void)n;
    return snprintf(buf, size, "%s%s%s%s", loc, err->field, err->field[0] ? ": " : "",
                    err->text[0] ? err->text : ht_strerror(err->code));
}

int ht__exit_status(int code)
{
    switch (code) {
    case HT_OK:
    case HT_DONE:
        return 0;
    case HT_EINVAL:
    case HT_EPARSE:
    case HT_ESPEC:
    case HT_EEXPR:
    case HT_EBUILD:
    case HT_ECONSTRAINT:
    case HT_ENODEVICE:
        return 2;
    case HT_EVERIFY:
        return 3;
    case HT_EINTR:
        return 130;
    case HT_ECUT:
    case HT_ECRASH:
    case HT_ETIMEOUT:
        return 1;
    default:
        return 1;
    }
}

static ht_log_fn log_fn;
static void *log_user;

void ht_set_log(ht_log_fn fn, void *user)
{
    log_fn = fn;
    log_user = user;
}

void ht__log(int level, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;

    if (!log_fn)
        return;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    log_fn(level, buf, log_user);
}

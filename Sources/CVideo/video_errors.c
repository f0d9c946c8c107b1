#include "video_errors.h"

#include <libavutil/error.h>
#include <stdarg.h>
#include <stdio.h>

int pv_fail(char *error, int size, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(error, (size_t)size, format, args);
    va_end(args);
    return -1;
}

const char *pv_describe(int code, char *buffer, size_t size) {
    if (av_strerror(code, buffer, size) < 0) snprintf(buffer, size, "error %d", code);
    return buffer;
}

// How the reader and the writer report failures: a message in the caller's buffer, -1 returned.
#ifndef VIDEO_ERRORS_H
#define VIDEO_ERRORS_H

#include <stddef.h>

/// Formats the message into `error` (`size` bytes) and returns -1.
int pv_fail(char *error, int size, const char *format, ...) __attribute__((format(printf, 3, 4)));

/// FFmpeg's text for the error `code`, in `buffer`.
const char *pv_describe(int code, char *buffer, size_t size);

#endif

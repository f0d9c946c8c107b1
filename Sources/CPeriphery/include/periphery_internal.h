/* Not part of the C API: what the Swift side of libperiphery.so calls into its C side. */
#ifndef PERIPHERY_INTERNAL_H
#define PERIPHERY_INTERNAL_H

/** Sets the calling thread's periphery_last_error() message (NULL clears it). */
__attribute__((visibility("hidden"))) void periphery_internal_set_error(const char *message);

#endif

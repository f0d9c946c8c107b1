// The C side of libperiphery.so: the versions, and the thread-local message behind
// periphery_last_error(), a fixed buffer per thread so that nothing is allocated (or leaked) per
// thread and a message outlives the Swift string it was copied from.
#include <string.h>

#include "periphery.h"
#include "periphery_internal.h"

static _Thread_local char last_error[1024];

int32_t periphery_api_version(void) { return PERIPHERY_API_VERSION; }

const char *periphery_version(void) { return PERIPHERY_VERSION_STRING; }

const char *periphery_last_error(void) { return last_error; }

void periphery_internal_set_error(const char *message) {
    // Longer messages are cut at the buffer's size.
    strncpy(last_error, message == NULL ? "" : message, sizeof last_error - 1);
    last_error[sizeof last_error - 1] = '\0';
}

// libwebsockets from Debian (libwebsockets-dev, 4.1). Swift imports this module for its link line
// only: every libwebsockets call is in CLiveServer's C, which includes the header itself.
#include <libwebsockets.h>

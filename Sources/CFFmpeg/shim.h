// FFmpeg's libraries from Debian (libavformat-dev, libavcodec-dev, libavutil-dev, libswscale-dev).
// Swift imports this module for its link lines only: every FFmpeg call is in CVideo's C, which
// includes these headers itself.
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libswscale/swscale.h>

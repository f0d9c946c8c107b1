// libjpeg-turbo from Debian's libjpeg-dev (libjpeg62-turbo). jpeglib.h needs stdio.h first.
#include <stdio.h>
#include <stddef.h>
#include <setjmp.h>
#include <jpeglib.h>

// CBLAS types and prototypes of Debian's OpenBLAS (libopenblas-dev).
//
// Deliberately no `link` directive and no pkg-config: OpenBLAS chooses its CPU kernel in a
// load-time constructor, so PeripheryInference loads it with dlopen() after choosing
// OPENBLAS_CORETYPE (see BLAS/OpenBLAS.swift). Linking it would load it before any Swift runs.
#include <cblas.h>

#ifndef MDOC_CLIBCBOR_SHIM_H
#define MDOC_CLIBCBOR_SHIM_H
#include <cbor.h>
#endif

#ifndef MDOC_CZLIB_SHIM_H
#define MDOC_CZLIB_SHIM_H
#include <zlib.h>
/* inflateInit and deflateInit are macros Swift cannot import. */
static inline int mdoc_inflate_init(z_streamp stream) { return inflateInit(stream); }
static inline int mdoc_deflate_init(z_streamp stream, int level) { return deflateInit(stream, level); }
#endif

#ifndef MDOC_CQRENCODE_SHIM_H
#define MDOC_CQRENCODE_SHIM_H
#include <qrencode.h>
/* libpng's declarations only: libpng itself is not linked but loaded (dlopen) when the first PNG
   is written (the QRCode target's PNGLibrary), so a process that writes none maps none of it. */
#include <png.h>
/* PNG_IMAGE_VERSION and the format macro, as values Swift can use. */
static inline unsigned int mdoc_png_image_version(void) { return PNG_IMAGE_VERSION; }
static inline unsigned int mdoc_png_format_gray(void) { return PNG_FORMAT_GRAY; }
#endif

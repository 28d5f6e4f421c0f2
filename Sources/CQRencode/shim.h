#ifndef MDOC_CQRENCODE_SHIM_H
#define MDOC_CQRENCODE_SHIM_H
#include <qrencode.h>
#endif

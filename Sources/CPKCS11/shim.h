#ifndef MDOC_CPKCS11_SHIM_H
#define MDOC_CPKCS11_SHIM_H
/* PKCS#11 (the standard names: CK_ATTRIBUTE.pValue, ...) and p11-kit's module loader. */
#include <p11-kit/p11-kit.h>
#endif

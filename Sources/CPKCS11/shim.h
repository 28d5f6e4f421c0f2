#ifndef MDOC_CPKCS11_SHIM_H
#define MDOC_CPKCS11_SHIM_H
/* PKCS#11 (the standard names: CK_ATTRIBUTE.pValue, ...) as p11-kit's header gives them. p11-kit
   itself is not linked but loaded (dlopen) when a PKCS#11 module is first used (the PKCS11
   target's P11KitLibrary), so a process whose keys are not on a token maps none of it. */
#include <p11-kit-1/p11-kit/pkcs11.h>

/* P11_KIT_MODULE_UNMANAGED of p11-kit.h (p11_kit_module_load's flags): the module is loaded as
   it is, without p11-kit's managed wrapper. */
static inline int mdoc_p11_kit_module_unmanaged(void) { return 1 << 0; }
#endif

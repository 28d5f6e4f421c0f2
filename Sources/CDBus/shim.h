#ifndef MDOC_CDBUS_SHIM_H
#define MDOC_CDBUS_SHIM_H
#include <dbus/dbus.h>
#endif

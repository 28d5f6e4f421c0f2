/* Against libdbus's own headers: every function in the shim's table has the type libdbus
   declares (a compile-time check), then the layout. */
#include <dbus/dbus.h>
#include <stddef.h>
#include "../../../Sources/CDBus/shim.h"
#include "layout.h"
#define SAME_TYPE(result, name, parameters) \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&name), result(*) parameters), \
                   #name " in Sources/CDBus/shim.h is not libdbus's");
MDOC_LIBDBUS_FUNCTIONS(SAME_TYPE)
int main(void) { return print_layout(); }

/* The layout and the constants CDBus's shim declares, printed one per line: the same program
   built against <dbus/dbus.h> and against the shim alone must print the same (dbus-abi-check.sh). */
#include <stdio.h>
static int print_layout(void) {
    printf("sizeof(dbus_bool_t) %zu\n", sizeof(dbus_bool_t));
    printf("sizeof(dbus_uint32_t) %zu\n", sizeof(dbus_uint32_t));
    printf("sizeof(DBusError) %zu\n", sizeof(DBusError));
    printf("DBusError.name %zu\n", offsetof(DBusError, name));
    printf("DBusError.message %zu\n", offsetof(DBusError, message));
    printf("DBusError.padding1 %zu\n", offsetof(DBusError, padding1));
    printf("sizeof(DBusMessageIter) %zu\n", sizeof(DBusMessageIter));
    printf("alignof(DBusMessageIter) %zu\n", _Alignof(DBusMessageIter));
    printf("sizeof(DBusHandlerResult) %zu\n", sizeof(DBusHandlerResult));
    printf("DBUS_HANDLER_RESULT_HANDLED %d\n", (int)DBUS_HANDLER_RESULT_HANDLED);
    printf("DBUS_HANDLER_RESULT_NOT_YET_HANDLED %d\n", (int)DBUS_HANDLER_RESULT_NOT_YET_HANDLED);
    printf("DBUS_HANDLER_RESULT_NEED_MEMORY %d\n", (int)DBUS_HANDLER_RESULT_NEED_MEMORY);
    printf("sizeof(DBusDispatchStatus) %zu\n", sizeof(DBusDispatchStatus));
    printf("DBUS_DISPATCH_DATA_REMAINS %d\n", (int)DBUS_DISPATCH_DATA_REMAINS);
    printf("DBUS_DISPATCH_COMPLETE %d\n", (int)DBUS_DISPATCH_COMPLETE);
    printf("DBUS_DISPATCH_NEED_MEMORY %d\n", (int)DBUS_DISPATCH_NEED_MEMORY);
    printf("DBUS_WATCH_READABLE %d\n", (int)DBUS_WATCH_READABLE);
    printf("DBUS_WATCH_WRITABLE %d\n", (int)DBUS_WATCH_WRITABLE);
    printf("DBUS_WATCH_ERROR %d\n", (int)DBUS_WATCH_ERROR);
    printf("DBUS_WATCH_HANGUP %d\n", (int)DBUS_WATCH_HANGUP);
    /* DBusError's bit-fields: the first one set alone, as a byte pattern after `message`. */
    DBusError error = {0};
    error.dummy1 = 1;
    unsigned char *bytes = (unsigned char *)&error;
    for (size_t i = offsetof(DBusError, message) + sizeof(char *); i < offsetof(DBusError, padding1); i++)
        printf("DBusError byte %zu: %u\n", i, bytes[i]);
    return 0;
}

#ifndef MDOC_CDBUS_SHIM_H
#define MDOC_CDBUS_SHIM_H
/* libdbus-1 is not linked but loaded (dlopen) when first used (the DBus target's DBusLibrary):
   a process maps none of it, nor the seven libraries it pulls in (libsystemd and its
   compressors, libgcrypt, libcap), until it talks to a bus, and `present` loads it as it
   starts. So this header declares, itself, the part of libdbus's
   stable ABI the DBus target uses, and the table of its functions the loader fills.
   Tests/Support/dbus-abi-check.sh compiles it against <dbus/dbus.h>: every function's type, the
   structures' sizes and layouts and the constants' values must be libdbus's. */
#include <stddef.h>

#ifndef DBUS_H /* the ABI check includes <dbus/dbus.h> first, and then only the table below */
typedef unsigned int dbus_uint32_t;
typedef dbus_uint32_t dbus_bool_t;

typedef struct DBusConnection DBusConnection;
typedef struct DBusMessage DBusMessage;
typedef struct DBusPendingCall DBusPendingCall;
typedef struct DBusWatch DBusWatch;
typedef struct DBusTimeout DBusTimeout;

/* Filled in by dbus_error_init and the calls that fail; name and message are libdbus's. */
typedef struct DBusError {
    const char *name;
    const char *message;
    unsigned int dummy1 : 1;
    unsigned int dummy2 : 1;
    unsigned int dummy3 : 1;
    unsigned int dummy4 : 1;
    unsigned int dummy5 : 1;
    void *padding1;
} DBusError;

/* Opaque to callers; its size is part of the ABI (callers own the storage). */
typedef struct DBusMessageIter {
    void *dummy1;
    void *dummy2;
    dbus_uint32_t dummy3;
    int dummy4;
    int dummy5;
    int dummy6;
    int dummy7;
    int dummy8;
    int dummy9;
    int dummy10;
    int dummy11;
    int pad1;
    void *pad2;
    void *pad3;
} DBusMessageIter;

typedef enum {
    DBUS_HANDLER_RESULT_HANDLED,
    DBUS_HANDLER_RESULT_NOT_YET_HANDLED,
    DBUS_HANDLER_RESULT_NEED_MEMORY
} DBusHandlerResult;

typedef enum {
    DBUS_DISPATCH_DATA_REMAINS,
    DBUS_DISPATCH_COMPLETE,
    DBUS_DISPATCH_NEED_MEMORY
} DBusDispatchStatus;

typedef enum {
    DBUS_WATCH_READABLE = 1 << 0,
    DBUS_WATCH_WRITABLE = 1 << 1,
    DBUS_WATCH_ERROR = 1 << 2,
    DBUS_WATCH_HANGUP = 1 << 3
} DBusWatchFlags;

typedef void (*DBusFreeFunction)(void *memory);
typedef DBusHandlerResult (*DBusHandleMessageFunction)(DBusConnection *connection, DBusMessage *message,
                                                       void *user_data);
typedef dbus_bool_t (*DBusAddWatchFunction)(DBusWatch *watch, void *data);
typedef void (*DBusWatchToggledFunction)(DBusWatch *watch, void *data);
typedef void (*DBusRemoveWatchFunction)(DBusWatch *watch, void *data);
typedef dbus_bool_t (*DBusAddTimeoutFunction)(DBusTimeout *timeout, void *data);
typedef void (*DBusTimeoutToggledFunction)(DBusTimeout *timeout, void *data);
typedef void (*DBusRemoveTimeoutFunction)(DBusTimeout *timeout, void *data);
typedef void (*DBusWakeupMainFunction)(void *data);
typedef void (*DBusPendingCallNotifyFunction)(DBusPendingCall *pending, void *user_data);
#endif

/* Every libdbus function the DBus target calls: X(return type, name, parameters). */
#define MDOC_LIBDBUS_FUNCTIONS(X) \
    X(dbus_bool_t, dbus_threads_init_default, (void)) \
    X(void, dbus_free, (void *memory)) \
    X(void, dbus_error_init, (DBusError *error)) \
    X(void, dbus_error_free, (DBusError *error)) \
    X(dbus_bool_t, dbus_error_is_set, (const DBusError *error)) \
    X(DBusConnection *, dbus_connection_open_private, (const char *address, DBusError *error)) \
    X(void, dbus_connection_close, (DBusConnection *connection)) \
    X(void, dbus_connection_unref, (DBusConnection *connection)) \
    X(void, dbus_connection_set_exit_on_disconnect, (DBusConnection *connection, dbus_bool_t exit_on_disconnect)) \
    X(dbus_bool_t, dbus_connection_add_filter, \
      (DBusConnection *connection, DBusHandleMessageFunction function, void *user_data, \
       DBusFreeFunction free_data_function)) \
    X(dbus_bool_t, dbus_connection_can_send_type, (DBusConnection *connection, int type)) \
    X(DBusDispatchStatus, dbus_connection_dispatch, (DBusConnection *connection)) \
    X(DBusDispatchStatus, dbus_connection_get_dispatch_status, (DBusConnection *connection)) \
    X(dbus_bool_t, dbus_connection_get_is_connected, (DBusConnection *connection)) \
    X(dbus_bool_t, dbus_connection_has_messages_to_send, (DBusConnection *connection)) \
    X(dbus_bool_t, dbus_connection_send, \
      (DBusConnection *connection, DBusMessage *message, dbus_uint32_t *client_serial)) \
    X(dbus_bool_t, dbus_connection_send_with_reply, \
      (DBusConnection *connection, DBusMessage *message, DBusPendingCall **pending_return, int timeout_milliseconds)) \
    X(dbus_bool_t, dbus_connection_set_watch_functions, \
      (DBusConnection *connection, DBusAddWatchFunction add_function, DBusRemoveWatchFunction remove_function, \
       DBusWatchToggledFunction toggled_function, void *data, DBusFreeFunction free_data_function)) \
    X(dbus_bool_t, dbus_connection_set_timeout_functions, \
      (DBusConnection *connection, DBusAddTimeoutFunction add_function, DBusRemoveTimeoutFunction remove_function, \
       DBusTimeoutToggledFunction toggled_function, void *data, DBusFreeFunction free_data_function)) \
    X(void, dbus_connection_set_wakeup_main_function, \
      (DBusConnection *connection, DBusWakeupMainFunction wakeup_main_function, void *data, \
       DBusFreeFunction free_data_function)) \
    X(DBusMessage *, dbus_message_new, (int message_type)) \
    X(DBusMessage *, dbus_message_new_method_call, \
      (const char *bus_name, const char *path, const char *iface, const char *method)) \
    X(DBusMessage *, dbus_message_new_signal, (const char *path, const char *iface, const char *name)) \
    X(void, dbus_message_unref, (DBusMessage *message)) \
    X(int, dbus_message_get_type, (DBusMessage *message)) \
    X(const char *, dbus_message_get_destination, (DBusMessage *message)) \
    X(const char *, dbus_message_get_error_name, (DBusMessage *message)) \
    X(const char *, dbus_message_get_interface, (DBusMessage *message)) \
    X(const char *, dbus_message_get_member, (DBusMessage *message)) \
    X(const char *, dbus_message_get_path, (DBusMessage *message)) \
    X(const char *, dbus_message_get_sender, (DBusMessage *message)) \
    X(dbus_bool_t, dbus_message_get_no_reply, (DBusMessage *message)) \
    X(dbus_uint32_t, dbus_message_get_reply_serial, (DBusMessage *message)) \
    X(dbus_uint32_t, dbus_message_get_serial, (DBusMessage *message)) \
    X(dbus_bool_t, dbus_message_set_destination, (DBusMessage *message, const char *destination)) \
    X(dbus_bool_t, dbus_message_set_error_name, (DBusMessage *message, const char *name)) \
    X(void, dbus_message_set_no_reply, (DBusMessage *message, dbus_bool_t no_reply)) \
    X(dbus_bool_t, dbus_message_set_reply_serial, (DBusMessage *message, dbus_uint32_t reply_serial)) \
    X(dbus_bool_t, dbus_message_iter_init, (DBusMessage *message, DBusMessageIter *iter)) \
    X(void, dbus_message_iter_init_append, (DBusMessage *message, DBusMessageIter *iter)) \
    X(int, dbus_message_iter_get_arg_type, (DBusMessageIter *iter)) \
    X(void, dbus_message_iter_get_basic, (DBusMessageIter *iter, void *value)) \
    X(void, dbus_message_iter_get_fixed_array, (DBusMessageIter *iter, void *value, int *n_elements)) \
    X(char *, dbus_message_iter_get_signature, (DBusMessageIter *iter)) \
    X(dbus_bool_t, dbus_message_iter_next, (DBusMessageIter *iter)) \
    X(void, dbus_message_iter_recurse, (DBusMessageIter *iter, DBusMessageIter *sub)) \
    X(dbus_bool_t, dbus_message_iter_append_basic, (DBusMessageIter *iter, int type, const void *value)) \
    X(dbus_bool_t, dbus_message_iter_append_fixed_array, \
      (DBusMessageIter *iter, int element_type, const void *value, int n_elements)) \
    X(dbus_bool_t, dbus_message_iter_open_container, \
      (DBusMessageIter *iter, int type, const char *contained_signature, DBusMessageIter *sub)) \
    X(dbus_bool_t, dbus_message_iter_close_container, (DBusMessageIter *iter, DBusMessageIter *sub)) \
    X(void, dbus_message_iter_abandon_container, (DBusMessageIter *iter, DBusMessageIter *sub)) \
    X(void, dbus_pending_call_cancel, (DBusPendingCall *pending)) \
    X(dbus_bool_t, dbus_pending_call_get_completed, (DBusPendingCall *pending)) \
    X(dbus_bool_t, dbus_pending_call_set_notify, \
      (DBusPendingCall *pending, DBusPendingCallNotifyFunction function, void *user_data, \
       DBusFreeFunction free_user_data)) \
    X(DBusMessage *, dbus_pending_call_steal_reply, (DBusPendingCall *pending)) \
    X(void, dbus_pending_call_unref, (DBusPendingCall *pending)) \
    X(dbus_bool_t, dbus_watch_get_enabled, (DBusWatch *watch)) \
    X(unsigned int, dbus_watch_get_flags, (DBusWatch *watch)) \
    X(int, dbus_watch_get_unix_fd, (DBusWatch *watch)) \
    X(dbus_bool_t, dbus_watch_handle, (DBusWatch *watch, unsigned int flags)) \
    X(dbus_bool_t, dbus_timeout_get_enabled, (DBusTimeout *timeout)) \
    X(int, dbus_timeout_get_interval, (DBusTimeout *timeout)) \
    X(dbus_bool_t, dbus_timeout_handle, (DBusTimeout *timeout)) \
    X(dbus_bool_t, dbus_validate_bus_name, (const char *name, DBusError *error)) \
    X(dbus_bool_t, dbus_validate_error_name, (const char *name, DBusError *error)) \
    X(dbus_bool_t, dbus_validate_interface, (const char *name, DBusError *error)) \
    X(dbus_bool_t, dbus_validate_member, (const char *name, DBusError *error))

/* The table: one field per function, named as the function. */
#define MDOC_LIBDBUS_FIELD(result, name, parameters) result(*_Nonnull name) parameters;
struct mdoc_libdbus {
    MDOC_LIBDBUS_FUNCTIONS(MDOC_LIBDBUS_FIELD)
};
#undef MDOC_LIBDBUS_FIELD

/* Fills `table` through `lookup(context, name)` (SharedLibrary's dlsym on the library's handle);
   NULL when every function was found, else the name of the first one missing (the table is then
   not to be read). */
static inline const char *_Nullable mdoc_libdbus_resolve(
    struct mdoc_libdbus *_Nonnull table,
    void *_Nullable (*_Nonnull lookup)(void *_Nullable, const char *_Nullable), void *_Nonnull context) {
#define MDOC_LIBDBUS_RESOLVE(result, name, parameters) \
    { \
        void *address = lookup(context, #name); \
        if (address == NULL) return #name; \
        table->name = (result(*) parameters)address; \
    }
    MDOC_LIBDBUS_FUNCTIONS(MDOC_LIBDBUS_RESOLVE)
#undef MDOC_LIBDBUS_RESOLVE
    return NULL;
}
#endif

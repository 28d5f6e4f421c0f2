import CDBus

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A connection to a D-Bus message bus.
///
/// ## Concurrency
///
/// Each connection is an actor whose serial executor is a dedicated thread
/// (``DBusEventLoop``). That thread is the only one that ever touches the libdbus
/// connection: actor methods, libdbus callbacks (watches, timeouts, filters, pending-call
/// notifications) and exported objects' handlers all run there, one at a time. Calls are
/// asynchronous (`dbus_connection_send_with_reply` + `dbus_pending_call_set_notify`), so
/// a peer that answers slowly, or never, delays only its own callers, until their timeout.
///
/// Values crossing the actor boundary are Swift values (``DBusMessage``, ``DBusValue``); no
/// libdbus pointer leaves the thread.
///
/// Close a connection with ``close()``; dropping the last reference also closes it and
/// ends its thread.
public actor DBusConnection {
    nonisolated let loop: DBusEventLoop
    /// The address this connection was opened with.
    public nonisolated let address: String

    public nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    private var handle: UncheckedPointer?
    private var raw: OpaquePointer? {
        get { handle?.value }
        set { handle = newValue.map(UncheckedPointer.init) }
    }
    private let reference = ConnectionReference()
    /// The unique name the bus gave this connection (`:1.42`).
    public private(set) var uniqueName = ""
    private var lostError: DBusError?

    private var nextToken: UInt64 = 1
    private var pendingCalls: [UInt64: PendingCall] = [:]
    private var subscriptions: [UInt64: Subscription] = [:]
    private var exports: [DBusObjectPath: Export] = [:]
    private var flushWaiters: [CheckedContinuation<Void, Never>] = []
    private var ownerWatches: [String: OwnerWatch] = [:]

    private struct PendingCall {
        let pending: OpaquePointer
        let continuation: CheckedContinuation<DBusMessage, any Error>
    }

    private struct Subscription {
        let rules: [DBusMatchRule]
        let continuation: AsyncStream<DBusMessage>.Continuation
    }

    private struct Export {
        let object: any DBusObject
        let subtree: Bool
    }

    private struct OwnerWatch {
        /// The unique name owning the name; "" for no owner; nil while not known.
        var owner: String?
        var count: Int
        var generation = 0
    }

    static let busName = "org.freedesktop.DBus"
    static let busPath: DBusObjectPath = "/org/freedesktop/DBus"

    // MARK: Opening and closing

    /// Opens the system bus: `DBUS_SYSTEM_BUS_ADDRESS` when set, else the standard socket.
    public static func system() async throws -> DBusConnection {
        var address = "unix:path=/var/run/dbus/system_bus_socket"
        if let value = getenv("DBUS_SYSTEM_BUS_ADDRESS"), value.pointee != 0 {
            address = String(cString: value)
        }
        return try await connect(address: address)
    }

    /// Opens the bus at `address` (`unix:path=/run/…`) and registers with it (`Hello`).
    public static func connect(address: String) async throws -> DBusConnection {
        try DBusLibrary.require()
        let connection = DBusConnection(address: address)
        try await connection.open()
        return connection
    }

    private init(address: String) {
        self.address = address
        loop = DBusEventLoop()
    }

    deinit {
        // No task can be waiting on this actor any more; release libdbus on its thread.
        for subscription in subscriptions.values { subscription.continuation.finish() }
        if let pointer = handle {
            loop.execute {
                libdbus.dbus_connection_close(pointer.value)
                libdbus.dbus_connection_unref(pointer.value)
            }
        }
        loop.stop()
    }

    private func open() async throws {
        var error = CDBus.DBusError()
        libdbus.dbus_error_init(&error)
        guard let raw = libdbus.dbus_connection_open_private(address, &error) else {
            throw Self.take(&error)
        }
        self.raw = raw
        libdbus.dbus_connection_set_exit_on_disconnect(raw, 0)
        reference.connection = self
        let context = Unmanaged.passRetained(reference).toOpaque()
        let filterAdded = libdbus.dbus_connection_add_filter(
            raw,
            { _, message, context in
                let reference = Unmanaged<ConnectionReference>.fromOpaque(context!).takeUnretainedValue()
                guard let message, let connection = reference.connection else {
                    return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
                }
                let pointer = UncheckedPointer(message)
                return connection.assumeIsolated { $0.filter(pointer.value) }
            }, context,
            { context in Unmanaged<ConnectionReference>.fromOpaque(context!).release() })
        guard filterAdded != 0, loop.attach(raw) else {
            if filterAdded == 0 { Unmanaged<ConnectionReference>.fromOpaque(context).release() }
            close()
            throw DBusError.noMemory
        }
        let reference = self.reference
        loop.service = {
            reference.connection?.assumeIsolated { $0.service() }
        }
        do {
            let reply = try await call(
                .methodCall(destination: Self.busName, path: Self.busPath, interface: Self.busName, member: "Hello"))
            uniqueName = reply.body.first?.stringValue ?? ""
        } catch {
            close()
            throw error
        }
    }

    /// Closes the connection: pending calls fail with `Disconnected`, signal streams finish,
    /// exported objects stop answering. Idempotent.
    public func close() {
        guard let raw else { return }
        self.raw = nil
        lostError = lostError ?? .disconnected()
        failEverything()
        libdbus.dbus_connection_close(raw)
        libdbus.dbus_connection_unref(raw)
        loop.service = nil
    }

    /// False once closed or once the bus has gone away.
    public var isConnected: Bool {
        guard let raw, lostError == nil else { return false }
        return libdbus.dbus_connection_get_is_connected(raw) != 0
    }

    /// Whether file descriptors (`h`) can be sent on this connection.
    public var canPassFileDescriptors: Bool {
        guard let raw else { return false }
        return libdbus.dbus_connection_can_send_type(raw, TypeCode.unixFD) != 0
    }

    private func failEverything() {
        let error = lostError ?? .disconnected()
        for call in pendingCalls.values {
            libdbus.dbus_pending_call_cancel(call.pending)
            libdbus.dbus_pending_call_unref(call.pending)
            call.continuation.resume(throwing: error)
        }
        pendingCalls = [:]
        for subscription in subscriptions.values { subscription.continuation.finish() }
        subscriptions = [:]
        for waiter in flushWaiters { waiter.resume() }
        flushWaiters = []
    }

    private static func take(_ error: inout CDBus.DBusError) -> DBusError {
        defer { libdbus.dbus_error_free(&error) }
        guard libdbus.dbus_error_is_set(&error) != 0 else { return .failed("libdbus failed without an error") }
        return DBusError(
            name: error.name.map { String(cString: $0) } ?? DBusError.failedName,
            message: error.message.map { String(cString: $0) } ?? "")
    }

    // MARK: Sending

    /// Queues `message` for sending and returns its serial. See ``flush()`` to wait until
    /// it has been written to the bus socket.
    @discardableResult
    public func send(_ message: DBusMessage) throws(DBusError) -> UInt32 {
        let raw = try liveConnection()
        if message.body.contains(where: Marshal.containsFileDescriptor),
            libdbus.dbus_connection_can_send_type(raw, TypeCode.unixFD) == 0
        {
            throw .notSupported("this connection cannot pass file descriptors")
        }
        let encoded = try Marshal.makeMessage(message)
        defer { libdbus.dbus_message_unref(encoded) }
        var serial: UInt32 = 0
        guard libdbus.dbus_connection_send(raw, encoded, &serial) != 0 else { throw .noMemory }
        return serial
    }

    /// Sends a signal.
    public func emit(_ signal: DBusMessage) throws(DBusError) {
        guard signal.kind == .signal else { throw .invalidArgs("not a signal") }
        try send(signal)
    }

    /// Returns once every message queued so far has been written to the bus socket.
    public func flush() async {
        guard let raw, libdbus.dbus_connection_has_messages_to_send(raw) != 0 else { return }
        await withCheckedContinuation { flushWaiters.append($0) }
    }

    private func liveConnection() throws(DBusError) -> OpaquePointer {
        guard let raw, lostError == nil else { throw lostError ?? .disconnected() }
        return raw
    }

    // MARK: Calls

    /// Calls a method and returns the reply. An error reply throws ``DBusError`` with the
    /// peer's error name; no reply within `timeout` throws `org.freedesktop.DBus.Error.NoReply`.
    /// Cancelling the task abandons the call (throws `CancellationError`).
    public func call(_ message: DBusMessage, timeout: Duration = .seconds(25)) async throws -> DBusMessage {
        let token = nextToken
        nextToken += 1
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<DBusMessage, any Error>) in
                startCall(message, timeout: timeout, token: token, continuation: continuation)
            }
        } onCancel: {
            Task { await self.cancelCall(token) }
        }
    }

    /// Calls a method and returns the reply's body.
    public func call(
        destination: String, path: DBusObjectPath, interface: String, member: String, body: [DBusValue] = [],
        timeout: Duration = .seconds(25)
    ) async throws -> [DBusValue] {
        try await call(
            .methodCall(destination: destination, path: path, interface: interface, member: member, body: body),
            timeout: timeout
        ).body
    }

    private func startCall(
        _ message: DBusMessage, timeout: Duration, token: UInt64,
        continuation: CheckedContinuation<DBusMessage, any Error>
    ) {
        if Task.isCancelled { return continuation.resume(throwing: CancellationError()) }
        let raw: OpaquePointer
        let encoded: OpaquePointer
        do {
            raw = try liveConnection()
            guard message.kind == .methodCall else { throw DBusError.invalidArgs("not a method call") }
            if message.body.contains(where: Marshal.containsFileDescriptor),
                libdbus.dbus_connection_can_send_type(raw, TypeCode.unixFD) == 0
            {
                throw DBusError.notSupported("this connection cannot pass file descriptors")
            }
            encoded = try Marshal.makeMessage(message)
        } catch {
            return continuation.resume(throwing: error)
        }
        defer { libdbus.dbus_message_unref(encoded) }
        var pending: OpaquePointer?
        guard libdbus.dbus_connection_send_with_reply(raw, encoded, &pending, Self.milliseconds(timeout)) != 0 else {
            return continuation.resume(throwing: DBusError.noMemory)
        }
        guard let pending else { return continuation.resume(throwing: DBusError.disconnected()) }
        pendingCalls[token] = PendingCall(pending: pending, continuation: continuation)
        let context = Unmanaged.passRetained(PendingContext(reference: reference, token: token)).toOpaque()
        let notifySet = libdbus.dbus_pending_call_set_notify(
            pending,
            { _, context in
                let pendingContext = Unmanaged<PendingContext>.fromOpaque(context!).takeUnretainedValue()
                guard let connection = pendingContext.reference.connection else { return }
                connection.assumeIsolated { $0.completeCall(pendingContext.token) }
            }, context,
            { context in Unmanaged<PendingContext>.fromOpaque(context!).release() })
        if notifySet == 0 {
            Unmanaged<PendingContext>.fromOpaque(context).release()
            pendingCalls[token] = nil
            libdbus.dbus_pending_call_cancel(pending)
            libdbus.dbus_pending_call_unref(pending)
            return continuation.resume(throwing: DBusError.noMemory)
        }
        if libdbus.dbus_pending_call_get_completed(pending) != 0 { completeCall(token) }
    }

    private func completeCall(_ token: UInt64) {
        guard let call = pendingCalls.removeValue(forKey: token) else { return }
        let reply = libdbus.dbus_pending_call_steal_reply(call.pending)
        libdbus.dbus_pending_call_unref(call.pending)
        guard let reply else {
            return call.continuation.resume(throwing: DBusError(name: DBusError.noReplyName, message: "no reply"))
        }
        defer { libdbus.dbus_message_unref(reply) }
        do {
            let message = try Marshal.decode(reply)
            if let error = message.error { throw error }
            call.continuation.resume(returning: message)
        } catch {
            call.continuation.resume(throwing: error)
        }
    }

    private func cancelCall(_ token: UInt64) {
        guard let call = pendingCalls.removeValue(forKey: token) else { return }
        libdbus.dbus_pending_call_cancel(call.pending)
        libdbus.dbus_pending_call_unref(call.pending)
        call.continuation.resume(throwing: CancellationError())
    }

    private static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        if seconds >= Int64(Int32.max / 1000) { return Int32.max }  // DBUS_TIMEOUT_INFINITE
        let ms = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return Int32(max(1, ms))
    }

    // MARK: Signals

    /// Adds `rule` on the bus and returns the matching messages. The subscription (and the
    /// bus match) ends when the stream's consumer stops iterating or the connection closes.
    public func subscribe(_ rule: DBusMatchRule) async throws -> AsyncStream<DBusMessage> {
        try await subscribe(anyOf: [rule])
    }

    /// Adds every rule on the bus and returns, in arrival order, the messages matching any
    /// of them (each message once). Use this rather than several streams when the order
    /// between different signals matters.
    public func subscribe(anyOf rules: [DBusMatchRule]) async throws -> AsyncStream<DBusMessage> {
        _ = try liveConnection()
        let token = nextToken
        nextToken += 1
        let (stream, continuation) = AsyncStream<DBusMessage>.makeStream(bufferingPolicy: .unbounded)
        subscriptions[token] = Subscription(rules: rules, continuation: continuation)
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            Task { await self.unsubscribe(token) }
        }
        var added: [DBusMatchRule] = []
        var watched: [String] = []
        do {
            for rule in rules {
                if let sender = rule.sender, Self.isWellKnown(sender) {
                    try await watchOwner(sender)
                    watched.append(sender)
                }
                try await addMatch(rule)
                added.append(rule)
            }
        } catch {
            if subscriptions.removeValue(forKey: token) != nil {
                for rule in added { removeMatch(rule) }
                for sender in watched { unwatchOwner(sender) }
            }
            continuation.finish()
            throw error
        }
        return stream
    }

    private func unsubscribe(_ token: UInt64) {
        guard let subscription = subscriptions.removeValue(forKey: token) else { return }
        for rule in subscription.rules {
            removeMatch(rule)
            if let sender = rule.sender, Self.isWellKnown(sender) { unwatchOwner(sender) }
        }
    }

    private func addMatch(_ rule: DBusMatchRule) async throws {
        _ = try await call(
            destination: Self.busName, path: Self.busPath, interface: Self.busName, member: "AddMatch",
            body: [.string(rule.description)])
    }

    private func removeMatch(_ rule: DBusMatchRule) {
        var message = DBusMessage.methodCall(
            destination: Self.busName, path: Self.busPath, interface: Self.busName, member: "RemoveMatch",
            body: [.string(rule.description)])
        message.noReplyExpected = true
        _ = try? send(message)
    }

    private static func isWellKnown(_ name: String) -> Bool { !name.hasPrefix(":") && name != busName }

    private func watchOwner(_ name: String) async throws {
        if ownerWatches[name] != nil {
            ownerWatches[name]?.count += 1
            return
        }
        ownerWatches[name] = OwnerWatch(owner: nil, count: 1)
        do {
            try await addMatch(.nameOwnerChanged(name))
            let generation = ownerWatches[name]?.generation
            let owner: String
            do {
                owner =
                    try await call(
                        destination: Self.busName, path: Self.busPath, interface: Self.busName,
                        member: "GetNameOwner", body: [.string(name)]
                    ).first?.stringValue ?? ""
            } catch let error as DBusError where error.name == DBusError.nameHasNoOwnerName {
                owner = ""
            }
            // A NameOwnerChanged seen meanwhile is newer than this answer.
            if ownerWatches[name]?.generation == generation, ownerWatches[name]?.owner == nil {
                ownerWatches[name]?.owner = owner
            }
        } catch {
            unwatchOwner(name)
            throw error
        }
    }

    private func unwatchOwner(_ name: String) {
        guard var watch = ownerWatches[name] else { return }
        watch.count -= 1
        if watch.count > 0 {
            ownerWatches[name] = watch
        } else {
            ownerWatches[name] = nil
            removeMatch(.nameOwnerChanged(name))
        }
    }

    // MARK: Names

    /// Asks the bus for a well-known name.
    public func requestName(_ name: String, flags: DBusNameFlags = .doNotQueue) async throws -> DBusRequestNameReply {
        guard libdbus.dbus_validate_bus_name(name, nil) != 0, !name.hasPrefix(":") else {
            throw DBusError.invalidArgs("invalid well-known bus name")
        }
        let reply = try await call(
            destination: Self.busName, path: Self.busPath, interface: Self.busName, member: "RequestName",
            body: [.string(name), .uint32(flags.rawValue)])
        guard let code = reply.first?.integerValue, let result = DBusRequestNameReply(rawValue: UInt32(code)) else {
            throw DBusError.failed("unexpected RequestName reply")
        }
        return result
    }

    /// Gives a well-known name back to the bus.
    public func releaseName(_ name: String) async throws -> DBusReleaseNameReply {
        guard libdbus.dbus_validate_bus_name(name, nil) != 0, !name.hasPrefix(":") else {
            throw DBusError.invalidArgs("invalid well-known bus name")
        }
        let reply = try await call(
            destination: Self.busName, path: Self.busPath, interface: Self.busName, member: "ReleaseName",
            body: [.string(name)])
        guard let code = reply.first?.integerValue, let result = DBusReleaseNameReply(rawValue: UInt32(code)) else {
            throw DBusError.failed("unexpected ReleaseName reply")
        }
        return result
    }

    // MARK: Exported objects

    /// Exports `object` at `path` (and every path below it when `subtree`). Method calls to
    /// the path go to ``DBusObject/handle(_:on:)``; calls to paths nobody exports get
    /// libdbus's `UnknownMethod` error.
    public func export(_ object: any DBusObject, at path: DBusObjectPath, subtree: Bool = false) throws(DBusError) {
        guard exports[path] == nil else {
            throw DBusError(name: "org.freedesktop.DBus.Error.ObjectPathInUse", message: "path already exported")
        }
        exports[path] = Export(object: object, subtree: subtree)
    }

    /// Stops exporting whatever is at `path`.
    public func unexport(_ path: DBusObjectPath) {
        exports[path] = nil
    }

    /// The introspection of a path nobody exports that lies above exported ones: a bare node
    /// with the next path element of each as a child. Nil when nothing is exported below it.
    func introspectAncestor(_ path: DBusObjectPath) -> String? {
        var children = Set<String>()
        for exported in exports.keys where exported != path && exported.isDescendant(of: path) {
            let rest = exported.rawValue.dropFirst(path.rawValue == "/" ? 1 : path.rawValue.count + 1)
            if let first = rest.split(separator: "/").first { children.insert(String(first)) }
        }
        guard !children.isEmpty else { return nil }
        var xml = """
            <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
            <node>
              <interface name="org.freedesktop.DBus.Introspectable">
                <method name="Introspect">
                  <arg name="xml_data" type="s" direction="out"/>
                </method>
              </interface>

            """
        for child in children.sorted() { xml += "  <node name=\"\(child)\"/>\n" }
        xml += "</node>\n"
        return xml
    }

    private func exported(at path: DBusObjectPath) -> Export? {
        if let export = exports[path] { return export }
        var candidate = path.parent
        while let current = candidate {
            if let export = exports[current], export.subtree { return export }
            candidate = current.parent
        }
        return nil
    }

    // MARK: Incoming messages (loop thread, inside dbus_connection_dispatch)

    private func service() {
        guard let raw else {
            for waiter in flushWaiters { waiter.resume() }
            flushWaiters = []
            return
        }
        while self.raw != nil, libdbus.dbus_connection_get_dispatch_status(raw) == DBUS_DISPATCH_DATA_REMAINS {
            _ = libdbus.dbus_connection_dispatch(raw)
        }
        if !flushWaiters.isEmpty, self.raw == nil || libdbus.dbus_connection_has_messages_to_send(raw) == 0 {
            for waiter in flushWaiters { waiter.resume() }
            flushWaiters = []
        }
    }

    private func filter(_ raw: OpaquePointer) -> DBusHandlerResult {
        guard let message = try? Marshal.decode(raw) else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
        switch message.kind {
        case .signal:
            if message.interface == "org.freedesktop.DBus.Local", message.member == "Disconnected" {
                lostError = .disconnected("the bus closed the connection")
                failEverything()
                return DBUS_HANDLER_RESULT_HANDLED
            }
            if message.sender == Self.busName, message.interface == Self.busName,
                message.member == "NameOwnerChanged", message.body.count == 3,
                let name = message.body[0].stringValue, ownerWatches[name] != nil
            {
                ownerWatches[name]?.owner = message.body[2].stringValue ?? ""
                ownerWatches[name]?.generation += 1
            }
            for subscription in subscriptions.values {
                let matched = subscription.rules.contains { rule in
                    rule.matches(message, senderOwner: rule.sender.flatMap { ownerWatches[$0]?.owner })
                }
                if matched { subscription.continuation.yield(message) }
            }
            return DBUS_HANDLER_RESULT_HANDLED
        case .methodCall:
            guard let path = message.path else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
            guard let export = exported(at: path) else {
                // `/` and `/org` above an exported `/org/mdocholder`: list the children, so
                // `busctl tree` and other introspecting tools find the objects.
                guard message.interface ?? DBusStandardInterface.introspectable == DBusStandardInterface.introspectable,
                    message.member == "Introspect", let xml = introspectAncestor(path)
                else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
                reply(to: message, body: [.string(xml)])
                return DBUS_HANDLER_RESULT_HANDLED
            }
            respond(to: message, with: export.object.handle(message, on: self))
            return DBUS_HANDLER_RESULT_HANDLED
        case .methodReturn, .error:
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        }
    }

    private func respond(to call: DBusMessage, with response: DBusMethodResponse) {
        switch response {
        case .reply(let body):
            reply(to: call, body: body)
        case .error(let error):
            reply(to: call, error: error)
        case .deferred(let work):
            Task {
                do {
                    let body = try await work()
                    self.reply(to: call, body: body)
                } catch let error as DBusError {
                    self.reply(to: call, error: error)
                } catch {
                    self.reply(to: call, error: .failed("the method failed"))
                }
            }
        }
    }

    /// Sends a method return for `call` (nothing if the caller asked for no reply). A body
    /// that cannot be sent becomes an error reply.
    public func reply(to call: DBusMessage, body: [DBusValue]) {
        guard !call.noReplyExpected, raw != nil else { return }
        var message = DBusMessage(kind: .methodReturn, body: body)
        message.replySerial = call.serial
        message.destination = call.sender
        do {
            try send(message)
        } catch {
            reply(to: call, error: error)
        }
    }

    /// Sends an error reply for `call`.
    public func reply(to call: DBusMessage, error: DBusError) {
        guard !call.noReplyExpected, raw != nil else { return }
        var message = DBusMessage(kind: .error, body: [.string(error.message)])
        message.replySerial = call.serial
        message.destination = call.sender
        message.errorName = libdbus.dbus_validate_error_name(error.name, nil) != 0 ? error.name : DBusError.failedName
        _ = try? send(message)
    }
}

/// Flags for ``DBusConnection/requestName(_:flags:)``.
public struct DBusNameFlags: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let allowReplacement = DBusNameFlags(rawValue: 1)
    public static let replaceExisting = DBusNameFlags(rawValue: 2)
    public static let doNotQueue = DBusNameFlags(rawValue: 4)
}

public enum DBusRequestNameReply: UInt32, Sendable {
    case primaryOwner = 1
    case inQueue = 2
    case exists = 3
    case alreadyOwner = 4
}

public enum DBusReleaseNameReply: UInt32, Sendable {
    case released = 1
    case nonExistent = 2
    case notOwner = 3
}

/// A weak link from libdbus callbacks back to their connection.
final class ConnectionReference: @unchecked Sendable {
    // Written once on the loop thread before any callback can run; read on the loop thread.
    weak var connection: DBusConnection?
}

final class PendingContext: Sendable {
    let reference: ConnectionReference
    let token: UInt64
    init(reference: ConnectionReference, token: UInt64) {
        self.reference = reference
        self.token = token
    }
}

/// A libdbus pointer handed to the loop thread.
struct UncheckedPointer: @unchecked Sendable {
    let value: OpaquePointer
    init(_ value: OpaquePointer) { self.value = value }
}

/// An object exported on a ``DBusConnection``: it answers the method calls sent to its path
/// (or, when exported as a subtree, to any path below it).
///
/// `handle(_:on:)` runs on the connection's thread, isolated to the connection, in the order
/// the calls arrived: keep it short and never block. Work that has to wait returns
/// ``DBusMethodResponse/deferred(_:)``; the reply is sent when it finishes.
public protocol DBusObject: AnyObject, Sendable {
    func handle(_ call: DBusMessage, on connection: isolated DBusConnection) -> DBusMethodResponse
}

/// What an exported object answers to a method call.
public enum DBusMethodResponse: Sendable {
    /// A method return with this body.
    case reply([DBusValue])
    /// An error reply.
    case error(DBusError)
    /// The reply comes later: the body's result, or the error it throws (a non-``DBusError``
    /// becomes `org.freedesktop.DBus.Error.Failed` without its details).
    case deferred(@Sendable () async throws -> [DBusValue])
}

/// A ``DBusObject`` made of a closure.
public final class DBusClosureObject: DBusObject {
    private let handler: @Sendable (DBusMessage, isolated DBusConnection) -> DBusMethodResponse

    public init(_ handler: @escaping @Sendable (DBusMessage, isolated DBusConnection) -> DBusMethodResponse) {
        self.handler = handler
    }

    public func handle(_ call: DBusMessage, on connection: isolated DBusConnection) -> DBusMethodResponse {
        handler(call, connection)
    }
}

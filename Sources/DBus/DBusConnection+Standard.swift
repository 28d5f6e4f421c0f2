/// Clients of the standard interfaces (`Properties`, `ObjectManager`) of other peers.
extension DBusConnection {
    /// `org.freedesktop.DBus.Properties.Get`, variant unwrapped.
    public func getProperty(
        destination: String, path: DBusObjectPath, interface: String, name: String, timeout: Duration = .seconds(25)
    ) async throws -> DBusValue {
        let body = try await call(
            destination: destination, path: path, interface: DBusStandardInterface.properties, member: "Get",
            body: [.string(interface), .string(name)], timeout: timeout)
        guard let value = body.first else { throw DBusError.invalidArgs("Get returned nothing") }
        return value.unwrapped
    }

    /// `org.freedesktop.DBus.Properties.GetAll`, variants unwrapped.
    public func getAllProperties(
        destination: String, path: DBusObjectPath, interface: String, timeout: Duration = .seconds(25)
    ) async throws -> [String: DBusValue] {
        let body = try await call(
            destination: destination, path: path, interface: DBusStandardInterface.properties, member: "GetAll",
            body: [.string(interface)], timeout: timeout)
        guard let properties = body.first?.propertiesValue else {
            throw DBusError.invalidArgs("GetAll did not return a{sv}")
        }
        return properties
    }

    /// `org.freedesktop.DBus.Properties.Set`.
    public func setProperty(
        destination: String, path: DBusObjectPath, interface: String, name: String, value: DBusValue,
        timeout: Duration = .seconds(25)
    ) async throws {
        _ = try await call(
            destination: destination, path: path, interface: DBusStandardInterface.properties, member: "Set",
            body: [.string(interface), .string(name), .variant(value)], timeout: timeout)
    }

    /// `org.freedesktop.DBus.ObjectManager.GetManagedObjects`, variants unwrapped.
    public func getManagedObjects(
        destination: String, path: DBusObjectPath = .root, timeout: Duration = .seconds(25)
    ) async throws -> [DBusObjectPath: [String: [String: DBusValue]]] {
        let body = try await call(
            destination: destination, path: path, interface: DBusStandardInterface.objectManager,
            member: "GetManagedObjects", timeout: timeout)
        guard let objects = body.first?.managedObjectsValue else {
            throw DBusError.invalidArgs("GetManagedObjects did not return a{oa{sa{sv}}}")
        }
        return objects
    }

    /// `org.freedesktop.DBus.GetNameOwner`: the unique name owning `name`, nil if none.
    public func nameOwner(_ name: String) async throws -> String? {
        do {
            return try await call(
                destination: DBusConnection.busName, path: DBusConnection.busPath, interface: DBusConnection.busName,
                member: "GetNameOwner", body: [.string(name)]
            ).first?.stringValue
        } catch let error as DBusError where error.name == DBusError.nameHasNoOwnerName {
            return nil
        }
    }
}

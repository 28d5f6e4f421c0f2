import Testing

@testable import DBus

/// libdbus-1 is loaded when a process first talks to a bus, not linked: what the process says
/// when it or one of its functions is missing, and that the installed one loads with every
/// function the DBus target calls (their types are checked by Tests/Support/dbus-abi-check.sh).
@Suite struct DBusLibraryTests {
    @Test("a missing libdbus is named with the package to install")
    func missingLibrary() {
        let result = DBusLibrary.load("libdbus-absent-for-test.so.3")
        guard case .failure(let error) = result else {
            Issue.record("loading an absent library did not fail")
            return
        }
        #expect(error.name == DBusError.failedName)
        #expect(error.message.hasPrefix("libdbus-absent-for-test.so.3 could not be loaded ("))
        #expect(error.message.hasSuffix("install the package libdbus-1-3"))
    }

    @Test("a library without libdbus's functions names the first one missing")
    func libraryWithoutTheFunctions() {
        let result = DBusLibrary.load("libz.so.1")
        guard case .failure(let error) = result else {
            Issue.record("libz.so.1 was taken for libdbus")
            return
        }
        #expect(error.message == "libz.so.1 has no dbus_threads_init_default: install libdbus-1-3 1.12 or later")
    }

    @Test("the installed libdbus-1.so.3 loads with every function, and a connection needs nothing more")
    func installedLibrary() throws {
        #expect(DBusLibrary.soname == "libdbus-1.so.3")
        try DBusLibrary.require()
        #expect(libdbus.dbus_validate_bus_name("org.bluez", nil) != 0)
        #expect(libdbus.dbus_validate_bus_name("not a name", nil) == 0)
    }
}

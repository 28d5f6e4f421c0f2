import DBus
import Foundation
import Synchronization
import TestSupport
import Testing

/// Two connections on a private dbus-daemon: a "server" exporting objects and a "client".
struct DBusConnectionTests {
    static let echoPath: DBusObjectPath = "/test/echo"
    static let echoInterface = "org.example.Echo"

    /// Answers `Echo` with its arguments, `Fail` with a typed error, `Slow` after a delay.
    static func exportEcho(on server: DBusConnection) async throws {
        let echo = DBusClosureObject { call, _ in
            switch call.member {
            case "Echo":
                return .reply(call.body)
            case "Fail":
                return .error(DBusError(name: "org.example.Error.Refused", message: "refused on purpose"))
            case "Slow":
                return .deferred {
                    try await Task.sleep(for: .seconds(2))
                    return [.string("late")]
                }
            case "Hang":
                return .deferred {
                    try await Task.sleep(for: .seconds(60))
                    return []
                }
            default:
                return .error(.unknownMethod("no such method"))
            }
        }
        try await server.export(echo, at: echoPath)
    }

    static func withPair(_ body: (DBusConnection, DBusConnection) async throws -> Void) async throws {
        try await PrivateBus.with { bus in
            let server = try await DBusConnection.connect(address: bus.address)
            let client = try await DBusConnection.connect(address: bus.address)
            do {
                try await exportEcho(on: server)
                try await body(server, client)
            } catch {
                await server.close()
                await client.close()
                throw error
            }
            await server.close()
            await client.close()
        }
    }

    static func echo(_ client: DBusConnection, _ server: DBusConnection, _ body: [DBusValue]) async throws
        -> [DBusValue]
    {
        try await client.call(
            destination: await server.uniqueName, path: echoPath, interface: echoInterface, member: "Echo", body: body)
    }

    @Test func connectionsGetUniqueNames() async throws {
        try await Self.withPair { server, client in
            let serverName = await server.uniqueName
            let clientName = await client.uniqueName
            #expect(serverName.hasPrefix(":"))
            #expect(clientName.hasPrefix(":"))
            #expect(serverName != clientName)
            #expect(await client.isConnected)
        }
    }

    @Test func everyTypeRoundTrips() async throws {
        let body: [DBusValue] = [
            .byte(0xFE), .boolean(true), .boolean(false), .int16(-12345), .uint16(65535), .int32(Int32.min),
            .uint32(UInt32.max), .int64(Int64.min), .uint64(UInt64.max), .double(-1.5e300), .string("héllo ✓"),
            .string(""), .objectPath("/org/bluez/hci0"), .signature(try DBusSignature("a{sv}")),
            .bytes(Array(0...255)), .bytes([]), .strings(["a", "b"]), .array(.int32, []),
            .array(.array(.byte), [.bytes([1]), .bytes([])]),
            .properties([
                "UUID": .string("0000180d-0000-1000-8000-00805f9b34fb"), "MTU": .uint16(512),
                "Flags": .strings(["read"]), "Value": .bytes([1, 2, 3]),
            ]),
            .dictionary(key: .int32, value: .boolean, [DBusDictEntry(.int32(1), .boolean(true))]),
            .managedObjects([
                "/app/service0": ["org.bluez.GattService1": ["UUID": .string("x"), "Primary": .boolean(true)]],
                "/app/service0/char0": [
                    "org.bluez.GattCharacteristic1": ["Service": .objectPath("/app/service0")],
                    "org.example.Empty": [:],
                ],
            ]),
            .variant(.variant(.uint32(7))), .variant(.bytes([5])),
            .structure([.string("s"), .structure([.uint16(3), .array(.objectPath, [])])]),
            .array(.structure([.string, .variant]), [.structure([.string("k"), .variant(.int64(-1))])]),
        ]
        try await Self.withPair { server, client in
            let echoed = try await Self.echo(client, server, body)
            #expect(echoed == body)
            let signature = body.map(\.signature).joined()
            #expect(echoed.map(\.signature).joined() == signature)
        }
    }

    @Test func largeByteArraysUseTheFastPath() async throws {
        let payload = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try await Self.withPair { server, client in
            let echoed = try await Self.echo(client, server, [.bytes(payload)])
            #expect(echoed.first?.bytesValue == payload)
        }
    }

    @Test func anErrorReplyArrivesTypedWithItsName() async throws {
        try await Self.withPair { server, client in
            do {
                _ = try await client.call(
                    destination: await server.uniqueName, path: Self.echoPath, interface: Self.echoInterface,
                    member: "Fail")
                Issue.record("expected an error")
            } catch let error as DBusError {
                #expect(error.name == "org.example.Error.Refused")
                #expect(error.message == "refused on purpose")
            }
        }
    }

    @Test func unknownPathsAndMethodsAreErrors() async throws {
        try await Self.withPair { server, client in
            let error = await #expect(throws: DBusError.self) {
                _ = try await client.call(
                    destination: await server.uniqueName, path: "/nothing/here", interface: Self.echoInterface,
                    member: "Echo")
            }
            #expect(error?.name == DBusError.unknownMethodName)
        }
    }

    @Test func aCallToAMissingNameFailsCleanly() async throws {
        try await Self.withPair { _, client in
            let error = await #expect(throws: DBusError.self) {
                _ = try await client.call(
                    destination: "org.example.Nobody", path: "/", interface: "org.example.X", member: "Y",
                    timeout: .seconds(2))
            }
            #expect(error?.name == DBusError.serviceUnknownName)
        }
    }

    @Test func aCallWithoutAnswerTimesOut() async throws {
        try await Self.withPair { server, client in
            let clock = ContinuousClock()
            let start = clock.now
            let error = await #expect(throws: DBusError.self) {
                _ = try await client.call(
                    destination: await server.uniqueName, path: Self.echoPath, interface: Self.echoInterface,
                    member: "Slow", timeout: .milliseconds(300))
            }
            #expect(error?.isTimeout == true)
            #expect(clock.now - start >= .milliseconds(250))
        }
    }

    @Test func aSlowPeerDoesNotBlockOtherCalls() async throws {
        try await Self.withPair { server, client in
            let destination = await server.uniqueName
            let slowFinished = Mutex(false)
            let slow = Task {
                defer { slowFinished.withLock { $0 = true } }
                return try await client.call(
                    destination: destination, path: Self.echoPath, interface: Self.echoInterface, member: "Hang",
                    timeout: .seconds(60))
            }
            // While the call waits on the peer, both connections keep answering.
            for i in 0..<20 {
                let echoed = try await Self.echo(client, server, [.uint32(UInt32(i))])
                #expect(echoed == [.uint32(UInt32(i))])
            }
            #expect(slowFinished.withLock { $0 } == false)
            slow.cancel()
            let result = await slow.result
            #expect(throws: CancellationError.self) { try result.get() }
        }
    }

    @Test func cancellingACallAbandonsIt() async throws {
        try await Self.withPair { server, client in
            let destination = await server.uniqueName
            let task = Task {
                try await client.call(
                    destination: destination, path: Self.echoPath, interface: Self.echoInterface, member: "Slow")
            }
            try await Task.sleep(for: .milliseconds(100))
            task.cancel()
            let result = await task.result
            #expect(throws: CancellationError.self) { try result.get() }
            // The connection still works.
            #expect(try await Self.echo(client, server, [.string("ok")]) == [.string("ok")])
        }
    }

    @Test func signalsArriveByMatchRuleInOrder() async throws {
        try await Self.withPair { server, client in
            #expect(try await server.requestName("org.example.Signaller") == .primaryOwner)
            let rule = DBusMatchRule(sender: "org.example.Signaller", interface: "org.example.Ticks", member: "Tick")
            let stream = try await client.subscribe(rule)
            for i in 0..<50 {
                try await server.emit(
                    .signal(path: "/ticks", interface: "org.example.Ticks", member: "Tick", body: [.uint32(UInt32(i))]))
                if i % 10 == 0 {
                    // Not matching: other member, other interface.
                    try await server.emit(.signal(path: "/ticks", interface: "org.example.Ticks", member: "Tock"))
                    try await server.emit(.signal(path: "/ticks", interface: "org.example.Other", member: "Tick"))
                }
            }
            var received: [UInt32] = []
            for await message in stream {
                #expect(message.member == "Tick")
                #expect(message.sender == (await server.uniqueName))
                received.append(UInt32(message.body.first?.integerValue ?? -1))
                if received.count == 50 { break }
            }
            #expect(received == Array(0..<50))
            #expect(try await server.releaseName("org.example.Signaller") == .released)
        }
    }

    @Test func aWellKnownSenderFollowsItsOwner() async throws {
        try await PrivateBus.with { bus in
            let client = try await DBusConnection.connect(address: bus.address)
            let first = try await DBusConnection.connect(address: bus.address)
            let impostor = try await DBusConnection.connect(address: bus.address)
            #expect(try await first.requestName("org.example.Service") == .primaryOwner)
            let stream = try await client.subscribe(DBusMatchRule(sender: "org.example.Service", member: "Ping"))
            let owners = try await client.subscribe(.nameOwnerChanged("org.example.Service"))
            try await impostor.emit(.signal(path: "/x", interface: "org.example.I", member: "Ping", body: ["impostor"]))
            try await first.emit(.signal(path: "/x", interface: "org.example.I", member: "Ping", body: ["first"]))
            await first.close()
            // Wait until the owner change is seen, then a new owner takes the name.
            for await change in owners where change.body.last?.stringValue == "" { break }
            let second = try await DBusConnection.connect(address: bus.address)
            #expect(try await second.requestName("org.example.Service") == .primaryOwner)
            try await second.emit(.signal(path: "/x", interface: "org.example.I", member: "Ping", body: ["second"]))
            var bodies: [String] = []
            for await message in stream {
                bodies.append(message.body.first?.stringValue ?? "")
                if bodies.count == 2 { break }
            }
            #expect(bodies == ["first", "second"])
            await client.close()
            await impostor.close()
            await second.close()
        }
    }

    @Test func fileDescriptorsPassBothWays() async throws {
        try await PrivateBus.with { bus in
            let server = try await DBusConnection.connect(address: bus.address)
            let client = try await DBusConnection.connect(address: bus.address)
            #expect(await client.canPassFileDescriptors)
            // The server reads what arrives on a passed descriptor and answers with a new one.
            let object = DBusClosureObject { call, _ in
                guard let fd = call.body.first?.fileDescriptorValue else { return .error(.invalidArgs("need h")) }
                var buffer = [UInt8](repeating: 0, count: 64)
                let count = read(fd.rawValue, &buffer, buffer.count)
                var fds: [Int32] = [-1, -1]
                guard pipe(&fds) == 0 else { return .error(.failed("pipe")) }
                let reply = Array("pong:".utf8) + buffer.prefix(max(0, count))
                _ = reply.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
                close(fds[1])
                return .reply([.unixFD(DBusFileDescriptor(taking: fds[0])), .uint16(512)])
            }
            try await server.export(object, at: "/fd")
            var fds: [Int32] = [-1, -1]
            #expect(pipe(&fds) == 0)
            _ = Array("ping".utf8).withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
            close(fds[1])
            let sent = DBusFileDescriptor(taking: fds[0])
            let reply = try await client.call(
                destination: await server.uniqueName, path: "/fd", interface: "org.example.Fd", member: "Swap",
                body: [.unixFD(sent)])
            #expect(reply.map(\.signature).joined() == "hq")
            let received = try #require(reply.first?.fileDescriptorValue)
            #expect(received.rawValue != sent.rawValue)
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = read(received.rawValue, &buffer, buffer.count)
            #expect(Array(buffer.prefix(max(0, count))) == Array("pong:ping".utf8))
            await server.close()
            await client.close()
        }
    }

    @Test func badValuesAreRefusedWithoutTheirContents() async throws {
        try await Self.withPair { server, client in
            let secret = "secret-payload-123"
            let error = await #expect(throws: DBusError.self) {
                _ = try await Self.echo(client, server, [.array(.uint32, [.string(secret)])])
            }
            #expect(error?.name == DBusError.invalidArgsName)
            #expect(!(error?.description.contains(secret) ?? true))
            await #expect(throws: DBusError.self) {
                _ = try await Self.echo(client, server, [.string("nul\u{0}inside")])
            }
            await #expect(throws: DBusError.self) {
                _ = try await client.call(destination: "bad..name", path: "/", interface: "a.b", member: "C")
            }
            // Still usable.
            let again = try await Self.echo(client, server, [.boolean(true)])
            #expect(again == [.boolean(true)])
        }
    }

    @Test func aClosedConnectionRefusesCalls() async throws {
        try await PrivateBus.with { bus in
            let client = try await DBusConnection.connect(address: bus.address)
            await client.close()
            #expect(!(await client.isConnected))
            let error = await #expect(throws: DBusError.self) {
                _ = try await client.call(
                    destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                    interface: "org.freedesktop.DBus", member: "GetId")
            }
            #expect(error?.name == DBusError.disconnectedName)
        }
    }

    @Test func connectingToNothingFails() async throws {
        await #expect(throws: DBusError.self) {
            _ = try await DBusConnection.connect(address: "unix:path=/nonexistent/bus-socket")
        }
    }
}

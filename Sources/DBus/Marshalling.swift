import CDBus

/// libdbus type codes (the header's macros are casts Swift does not import).
enum TypeCode {
    static let invalid: Int32 = 0
    static let byte = Int32(UInt8(ascii: "y"))
    static let boolean = Int32(UInt8(ascii: "b"))
    static let int16 = Int32(UInt8(ascii: "n"))
    static let uint16 = Int32(UInt8(ascii: "q"))
    static let int32 = Int32(UInt8(ascii: "i"))
    static let uint32 = Int32(UInt8(ascii: "u"))
    static let int64 = Int32(UInt8(ascii: "x"))
    static let uint64 = Int32(UInt8(ascii: "t"))
    static let double = Int32(UInt8(ascii: "d"))
    static let string = Int32(UInt8(ascii: "s"))
    static let objectPath = Int32(UInt8(ascii: "o"))
    static let signature = Int32(UInt8(ascii: "g"))
    static let unixFD = Int32(UInt8(ascii: "h"))
    static let array = Int32(UInt8(ascii: "a"))
    static let variant = Int32(UInt8(ascii: "v"))
    static let structure = Int32(UInt8(ascii: "r"))
    static let dictEntry = Int32(UInt8(ascii: "e"))
}

enum MessageTypeCode {
    static let methodCall: Int32 = 1
    static let methodReturn: Int32 = 2
    static let error: Int32 = 3
    static let signal: Int32 = 4
}

/// Converts between ``DBusMessage`` values and libdbus messages. Runs on a connection's
/// thread only. libdbus aborts the process on malformed names, so every name, path and
/// signature is validated here first.
enum Marshal {
    // MARK: Swift -> libdbus

    /// A new libdbus message (reference owned by the caller) for `message`.
    static func makeMessage(_ message: DBusMessage) throws(DBusError) -> OpaquePointer {
        try validateHeader(message)
        for value in message.body { try validate(value) }
        let raw: OpaquePointer?
        switch message.kind {
        case .methodCall:
            guard let path = message.path, let member = message.member else {
                throw .invalidArgs("method call without path or member")
            }
            raw = libdbus.dbus_message_new_method_call(message.destination, path.rawValue, message.interface, member)
        case .signal:
            guard let path = message.path, let interface = message.interface, let member = message.member else {
                throw .invalidArgs("signal without path, interface or member")
            }
            raw = libdbus.dbus_message_new_signal(path.rawValue, interface, member)
        case .methodReturn:
            raw = libdbus.dbus_message_new(MessageTypeCode.methodReturn)
        case .error:
            raw = libdbus.dbus_message_new(MessageTypeCode.error)
        }
        guard let raw else { throw DBusError.noMemory }
        var ok = true
        switch message.kind {
        case .methodCall:
            if message.noReplyExpected { libdbus.dbus_message_set_no_reply(raw, 1) }
        case .signal:
            if let destination = message.destination {
                ok = ok && libdbus.dbus_message_set_destination(raw, destination) != 0
            }
        case .methodReturn, .error:
            guard let replySerial = message.replySerial else {
                libdbus.dbus_message_unref(raw)
                throw .invalidArgs("reply without reply serial")
            }
            ok = ok && libdbus.dbus_message_set_reply_serial(raw, replySerial) != 0
            if let destination = message.destination {
                ok = ok && libdbus.dbus_message_set_destination(raw, destination) != 0
            }
            if message.kind == .error {
                ok = ok && libdbus.dbus_message_set_error_name(raw, message.errorName ?? DBusError.failedName) != 0
            }
            libdbus.dbus_message_set_no_reply(raw, 1)
        }
        if ok {
            var iter = DBusMessageIter()
            libdbus.dbus_message_iter_init_append(raw, &iter)
            for value in message.body where ok {
                ok = append(value, to: &iter)
            }
        }
        guard ok else {
            libdbus.dbus_message_unref(raw)
            throw DBusError.noMemory
        }
        return raw
    }

    static func validateHeader(_ message: DBusMessage) throws(DBusError) {
        if let destination = message.destination, libdbus.dbus_validate_bus_name(destination, nil) == 0 {
            throw .invalidArgs("invalid destination bus name")
        }
        if let interface = message.interface, libdbus.dbus_validate_interface(interface, nil) == 0 {
            throw .invalidArgs("invalid interface name")
        }
        if let member = message.member, libdbus.dbus_validate_member(member, nil) == 0 {
            throw .invalidArgs("invalid member name")
        }
        if message.kind == .error, let name = message.errorName, libdbus.dbus_validate_error_name(name, nil) == 0 {
            throw .invalidArgs("invalid error name")
        }
    }

    /// Checks that a value is well-formed (container element types agree, strings have no
    /// NUL, nesting within limits) so that libdbus is never handed something it rejects.
    static func validate(_ value: DBusValue) throws(DBusError) {
        try checkTree(value)
        _ = try DBusType.parseSingle(value.signature)
    }

    private static func checkTree(_ value: DBusValue) throws(DBusError) {
        switch value {
        case .string(let s):
            if s.utf8.contains(0) { throw .invalidArgs("string contains NUL") }
        case .array(let element, let values):
            for v in values {
                guard v.type == element else {
                    throw .invalidArgs("array element of type \(v.signature) in an array of \(element.signature)")
                }
                try checkTree(v)
            }
        case .dictionary(let keyType, let valueType, let entries):
            guard keyType.isBasic else { throw .invalidSignature("dictionary key is not a basic type") }
            for entry in entries {
                guard entry.key.type == keyType, entry.value.type == valueType else {
                    throw .invalidArgs(
                        "dictionary entry \(entry.key.signature)\(entry.value.signature) in a{\(keyType)\(valueType)}")
                }
                try checkTree(entry.key)
                try checkTree(entry.value)
            }
        case .variant(let inner):
            try checkTree(inner)
        case .structure(let fields):
            guard !fields.isEmpty else { throw .invalidSignature("empty structure") }
            for field in fields { try checkTree(field) }
        default:
            break
        }
    }

    private static func appendBasic<T>(_ iter: inout DBusMessageIter, _ code: Int32, _ value: T) -> Bool {
        var copy = value
        return withUnsafePointer(to: &copy) { libdbus.dbus_message_iter_append_basic(&iter, code, $0) != 0 }
    }

    private static func appendString(_ iter: inout DBusMessageIter, _ code: Int32, _ string: String) -> Bool {
        string.withCString { cString in
            var pointer: UnsafePointer<CChar>? = cString
            return libdbus.dbus_message_iter_append_basic(&iter, code, &pointer) != 0
        }
    }

    /// Opens a container, runs `body` on it, closes it (or abandons it on failure).
    private static func container(
        _ iter: inout DBusMessageIter, _ code: Int32, _ signature: String?,
        _ body: (inout DBusMessageIter) -> Bool
    ) -> Bool {
        var sub = DBusMessageIter()
        let opened: Bool
        if let signature {
            opened = signature.withCString { libdbus.dbus_message_iter_open_container(&iter, code, $0, &sub) != 0 }
        } else {
            opened = libdbus.dbus_message_iter_open_container(&iter, code, nil, &sub) != 0
        }
        guard opened else { return false }
        guard body(&sub) else {
            libdbus.dbus_message_iter_abandon_container(&iter, &sub)
            return false
        }
        return libdbus.dbus_message_iter_close_container(&iter, &sub) != 0
    }

    private static func appendBytes(_ iter: inout DBusMessageIter, _ bytes: [UInt8]) -> Bool {
        container(&iter, TypeCode.array, "y") { sub in
            guard !bytes.isEmpty else { return true }
            return bytes.withUnsafeBufferPointer { buffer in
                var base: UnsafePointer<UInt8>? = buffer.baseAddress
                return libdbus.dbus_message_iter_append_fixed_array(&sub, TypeCode.byte, &base, Int32(buffer.count))
                    != 0
            }
        }
    }

    /// Appends a validated value.
    static func append(_ value: DBusValue, to iter: inout DBusMessageIter) -> Bool {
        switch value {
        case .byte(let v): return appendBasic(&iter, TypeCode.byte, v)
        case .boolean(let v): return appendBasic(&iter, TypeCode.boolean, dbus_bool_t(v ? 1 : 0))
        case .int16(let v): return appendBasic(&iter, TypeCode.int16, v)
        case .uint16(let v): return appendBasic(&iter, TypeCode.uint16, v)
        case .int32(let v): return appendBasic(&iter, TypeCode.int32, v)
        case .uint32(let v): return appendBasic(&iter, TypeCode.uint32, v)
        case .int64(let v): return appendBasic(&iter, TypeCode.int64, v)
        case .uint64(let v): return appendBasic(&iter, TypeCode.uint64, v)
        case .double(let v): return appendBasic(&iter, TypeCode.double, v)
        case .string(let v): return appendString(&iter, TypeCode.string, v)
        case .objectPath(let v): return appendString(&iter, TypeCode.objectPath, v.rawValue)
        case .signature(let v): return appendString(&iter, TypeCode.signature, v.rawValue)
        case .unixFD(let fd):
            // libdbus duplicates the descriptor; `fd` stays open and owned by its object.
            return withExtendedLifetime(fd) { appendBasic(&iter, TypeCode.unixFD, fd.rawValue) }
        case .bytes(let bytes):
            return appendBytes(&iter, bytes)
        case .array(.byte, let values):
            return appendBytes(&iter, DBusValue.array(.byte, values).bytesValue ?? [])
        case .array(let element, let values):
            return container(&iter, TypeCode.array, element.signature) { sub in
                values.allSatisfy { append($0, to: &sub) }
            }
        case .dictionary(let key, let valueType, let entries):
            let entrySignature = "{" + key.signature + valueType.signature + "}"
            return container(&iter, TypeCode.array, entrySignature) { sub in
                entries.allSatisfy { entry in
                    container(&sub, TypeCode.dictEntry, nil) { entryIter in
                        append(entry.key, to: &entryIter) && append(entry.value, to: &entryIter)
                    }
                }
            }
        case .variant(let inner):
            return container(&iter, TypeCode.variant, inner.signature) { sub in append(inner, to: &sub) }
        case .structure(let fields):
            return container(&iter, TypeCode.structure, nil) { sub in
                fields.allSatisfy { append($0, to: &sub) }
            }
        }
    }

    /// True if the value holds a file descriptor anywhere.
    static func containsFileDescriptor(_ value: DBusValue) -> Bool {
        switch value {
        case .unixFD: true
        case .array(let element, let values): typeContainsFD(element) && values.contains(where: containsFileDescriptor)
        case .dictionary(_, _, let entries):
            entries.contains { containsFileDescriptor($0.key) || containsFileDescriptor($0.value) }
        case .variant(let inner): containsFileDescriptor(inner)
        case .structure(let fields): fields.contains(where: containsFileDescriptor)
        default: false
        }
    }

    private static func typeContainsFD(_ type: DBusType) -> Bool {
        switch type {
        case .unixFD, .variant: true
        case .array(let element): typeContainsFD(element)
        case .dictionary(let key, let value): typeContainsFD(key) || typeContainsFD(value)
        case .structure(let fields): fields.contains(where: typeContainsFD)
        default: false
        }
    }

    // MARK: libdbus -> Swift

    /// Decodes a libdbus message (borrowed) into a value.
    static func decode(_ raw: OpaquePointer) throws(DBusError) -> DBusMessage {
        let kind: DBusMessage.Kind
        switch libdbus.dbus_message_get_type(raw) {
        case MessageTypeCode.methodCall: kind = .methodCall
        case MessageTypeCode.methodReturn: kind = .methodReturn
        case MessageTypeCode.error: kind = .error
        case MessageTypeCode.signal: kind = .signal
        default: throw .invalidArgs("unknown message type")
        }
        var message = DBusMessage(kind: kind)
        message.serial = libdbus.dbus_message_get_serial(raw)
        let replySerial = libdbus.dbus_message_get_reply_serial(raw)
        message.replySerial = replySerial == 0 ? nil : replySerial
        if let path = libdbus.dbus_message_get_path(raw) {
            message.path = DBusObjectPath(unchecked: String(cString: path))
        }
        message.interface = libdbus.dbus_message_get_interface(raw).map { String(cString: $0) }
        message.member = libdbus.dbus_message_get_member(raw).map { String(cString: $0) }
        message.errorName = libdbus.dbus_message_get_error_name(raw).map { String(cString: $0) }
        message.destination = libdbus.dbus_message_get_destination(raw).map { String(cString: $0) }
        message.sender = libdbus.dbus_message_get_sender(raw).map { String(cString: $0) }
        message.noReplyExpected = libdbus.dbus_message_get_no_reply(raw) != 0
        var iter = DBusMessageIter()
        if libdbus.dbus_message_iter_init(raw, &iter) != 0 {
            var body: [DBusValue] = []
            while libdbus.dbus_message_iter_get_arg_type(&iter) != TypeCode.invalid {
                body.append(try read(&iter))
                _ = libdbus.dbus_message_iter_next(&iter)
            }
            message.body = body
        }
        return message
    }

    private static func readBasic<T>(_ iter: inout DBusMessageIter, _ initial: T) -> T {
        var value = initial
        withUnsafeMutablePointer(to: &value) { libdbus.dbus_message_iter_get_basic(&iter, $0) }
        return value
    }

    private static func readString(_ iter: inout DBusMessageIter) -> String {
        var pointer: UnsafePointer<CChar>? = nil
        withUnsafeMutablePointer(to: &pointer) { libdbus.dbus_message_iter_get_basic(&iter, $0) }
        return pointer.map { String(cString: $0) } ?? ""
    }

    private static func iterSignature(_ iter: inout DBusMessageIter) throws(DBusError) -> DBusType {
        guard let raw = libdbus.dbus_message_iter_get_signature(&iter) else { throw DBusError.noMemory }
        defer { libdbus.dbus_free(raw) }
        return try DBusType.parseSingle(String(cString: raw))
    }

    static func read(_ iter: inout DBusMessageIter) throws(DBusError) -> DBusValue {
        switch libdbus.dbus_message_iter_get_arg_type(&iter) {
        case TypeCode.byte: return .byte(readBasic(&iter, UInt8(0)))
        case TypeCode.boolean: return .boolean(readBasic(&iter, dbus_bool_t(0)) != 0)
        case TypeCode.int16: return .int16(readBasic(&iter, Int16(0)))
        case TypeCode.uint16: return .uint16(readBasic(&iter, UInt16(0)))
        case TypeCode.int32: return .int32(readBasic(&iter, Int32(0)))
        case TypeCode.uint32: return .uint32(readBasic(&iter, UInt32(0)))
        case TypeCode.int64: return .int64(readBasic(&iter, Int64(0)))
        case TypeCode.uint64: return .uint64(readBasic(&iter, UInt64(0)))
        case TypeCode.double: return .double(readBasic(&iter, Double(0)))
        case TypeCode.string: return .string(readString(&iter))
        case TypeCode.objectPath: return .objectPath(DBusObjectPath(unchecked: readString(&iter)))
        case TypeCode.signature: return .signature(try DBusSignature(readString(&iter)))
        case TypeCode.unixFD:
            // libdbus hands out a duplicate that the caller owns.
            let fd = readBasic(&iter, Int32(-1))
            guard fd >= 0 else { throw .failed("could not read a file descriptor from the message") }
            return .unixFD(DBusFileDescriptor(taking: fd))
        case TypeCode.variant:
            var sub = DBusMessageIter()
            libdbus.dbus_message_iter_recurse(&iter, &sub)
            return .variant(try read(&sub))
        case TypeCode.structure:
            var sub = DBusMessageIter()
            libdbus.dbus_message_iter_recurse(&iter, &sub)
            var fields: [DBusValue] = []
            while libdbus.dbus_message_iter_get_arg_type(&sub) != TypeCode.invalid {
                fields.append(try read(&sub))
                _ = libdbus.dbus_message_iter_next(&sub)
            }
            return .structure(fields)
        case TypeCode.array:
            let type = try iterSignature(&iter)
            var sub = DBusMessageIter()
            libdbus.dbus_message_iter_recurse(&iter, &sub)
            switch type {
            case .array(.byte):
                var base: UnsafePointer<UInt8>? = nil
                var count: Int32 = 0
                withUnsafeMutablePointer(to: &base) { libdbus.dbus_message_iter_get_fixed_array(&sub, $0, &count) }
                guard let base, count > 0 else { return .bytes([]) }
                return .bytes(Array(UnsafeBufferPointer(start: base, count: Int(count))))
            case .dictionary(let keyType, let valueType):
                var entries: [DBusDictEntry] = []
                while libdbus.dbus_message_iter_get_arg_type(&sub) == TypeCode.dictEntry {
                    var entryIter = DBusMessageIter()
                    libdbus.dbus_message_iter_recurse(&sub, &entryIter)
                    let key = try read(&entryIter)
                    _ = libdbus.dbus_message_iter_next(&entryIter)
                    let value = try read(&entryIter)
                    entries.append(DBusDictEntry(key, value))
                    _ = libdbus.dbus_message_iter_next(&sub)
                }
                return .dictionary(key: keyType, value: valueType, entries)
            case .array(let element):
                var values: [DBusValue] = []
                while libdbus.dbus_message_iter_get_arg_type(&sub) != TypeCode.invalid {
                    values.append(try read(&sub))
                    _ = libdbus.dbus_message_iter_next(&sub)
                }
                return .array(element, values)
            default:
                throw .invalidSignature("array iterator without an array type")
            }
        default:
            throw .invalidSignature("unsupported type code in message")
        }
    }
}

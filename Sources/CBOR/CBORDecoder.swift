import CLibCBOR

extension CBOR {
    /// Decodes exactly one CBOR item from `bytes` with libcbor's streaming decoder, building
    /// the value directly (no intermediate libcbor tree). Trailing bytes are an error.
    public static func decode(_ bytes: [UInt8], limits: CBORDecodingLimits = .default) throws(CBORError) -> CBOR {
        try bytes.withUnsafeBufferPointer { (buffer) throws(CBORError) -> CBOR in
            try decode(buffer, limits: limits, depth: 0)
        }
    }

    static func decode(_ buffer: UnsafeBufferPointer<UInt8>, limits: CBORDecodingLimits, depth: Int) throws(CBORError)
        -> CBOR
    {
        guard buffer.count <= limits.maxBytes else {
            throw .sizeLimitExceeded(size: buffer.count, limit: limits.maxBytes)
        }
        let builder = StreamingBuilder(buffer: buffer, limits: limits, baseDepth: depth)
        return try builder.run()
    }
}

/// Receives libcbor's streaming callbacks and assembles ``CBOR`` values on a stack.
private final class StreamingBuilder {
    fileprivate struct Frame {
        enum Kind {
            case array
            case map
            case tag(UInt64)
            case indefiniteBytes
            case indefiniteText
        }
        var kind: Kind
        /// Items still expected; nil for indefinite length.
        var remaining: Int?
        var items: [CBOR] = []
        var chunks: [UInt8] = []
        let start: Int
    }

    private let buffer: UnsafeBufferPointer<UInt8>
    private let limits: CBORDecodingLimits
    private let baseDepth: Int
    private var stack: [Frame] = []
    private var result: CBOR?
    private var error: CBORError?
    private var itemCount = 0
    /// Offset of the head being decoded, and of the byte after it.
    private var offset = 0
    private var next = 0
    /// Offset just past the last byte string delivered (where a tag-24 item around it ends).
    private var stringEnd = 0

    init(buffer: UnsafeBufferPointer<UInt8>, limits: CBORDecodingLimits, baseDepth: Int) {
        self.buffer = buffer
        self.limits = limits
        self.baseDepth = baseDepth
    }

    func run() throws(CBORError) -> CBOR {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { throw .truncated(offset: 0) }
        var callbacks = Self.callbacks
        let context = Unmanaged.passUnretained(self).toOpaque()
        while result == nil {
            guard offset < buffer.count else { throw .truncated(offset: offset) }
            let initial = buffer[offset]
            // libcbor 0.8 reports unassigned simple values as errors; RFC 8949 says they are
            // well-formed, so they are read here.
            if initial >= 0xE0 && initial <= 0xF3 {
                next = offset + 1
                emit(.simple(initial & 0x1F))
            } else if initial >= 0xC6 && initial <= 0xD4 {
                // libcbor 0.8 also refuses one-byte tags 6-20 ("unassigned"), yet they are
                // well-formed, and COSE uses 16, 17 and 18 (tagged COSE_Sign1 is 0xD2).
                next = offset + 1
                open(.tag(UInt64(initial & 0x1F)), count: 1)
            } else if initial == 0xF8 {
                guard offset + 1 < buffer.count else { throw .truncated(offset: offset) }
                let value = buffer[offset + 1]
                guard value >= 32 else {
                    throw .malformed(offset: offset, reason: "two-byte simple value below 32")
                }
                next = offset + 2
                emit(.simple(value))
            } else {
                let r = cbor_stream_decode(base + offset, buffer.count - offset, &callbacks, context)
                switch r.status {
                case CBOR_DECODER_FINISHED:
                    next = offset + r.read
                case CBOR_DECODER_NEDATA:
                    throw .truncated(offset: offset)
                default:
                    throw .malformed(offset: offset, reason: "reserved or invalid initial byte")
                }
            }
            if let error { throw error }
            offset = next
        }
        if offset != buffer.count { throw .trailingBytes(offset: offset) }
        return result!
    }

    // MARK: Assembling

    /// The kind of the innermost open item, read in place (`stack.last` would copy the frame,
    /// retaining and releasing its items for every string and every item opened).
    private var topKind: Frame.Kind? {
        stack.isEmpty ? nil : stack[stack.count - 1].kind
    }

    fileprivate func fail(_ e: CBORError) {
        if error == nil { error = e }
    }

    fileprivate func countItem() -> Bool {
        itemCount += 1
        if itemCount > limits.maxItems {
            fail(.itemLimitExceeded(limit: limits.maxItems))
            return false
        }
        return true
    }

    fileprivate func emit(_ value: CBOR) {
        guard error == nil, countItem() else { return }
        deliver(value)
    }

    private func deliver(_ item: CBOR) {
        var value = item
        while true {
            guard !stack.isEmpty else {
                result = value
                return
            }
            let top = stack.count - 1
            switch stack[top].kind {
            case .indefiniteBytes:
                guard case .bytes(let b) = value else {
                    return fail(.malformed(offset: offset, reason: "indefinite byte string chunk is not a byte string"))
                }
                stack[top].chunks.append(contentsOf: b)
                return
            case .indefiniteText:
                guard case .text(let t) = value else {
                    return fail(.malformed(offset: offset, reason: "indefinite text string chunk is not a text string"))
                }
                stack[top].chunks.append(contentsOf: Array(t.utf8))
                return
            case .tag(let tag):
                let frame = stack.removeLast()
                guard let tagged = makeTagged(tag, value, start: frame.start) else { return }
                value = tagged
                continue
            case .array, .map:
                stack[top].items.append(value)
                if let remaining = stack[top].remaining {
                    stack[top].remaining = remaining - 1
                    if remaining - 1 == 0 {
                        guard let done = finish(stack.removeLast()) else { return }
                        value = done
                        continue
                    }
                }
                return
            }
        }
    }

    private func finish(_ frame: Frame) -> CBOR? {
        switch frame.kind {
        case .array:
            return .array(frame.items)
        case .map:
            guard !Self.hasDuplicateKey(frame.items) else {
                fail(.duplicateMapKey(offset: frame.start))
                return nil
            }
            var entries: [CBORMapEntry] = []
            entries.reserveCapacity(frame.items.count / 2)
            var i = 0
            while i + 1 < frame.items.count {
                entries.append(CBORMapEntry(frame.items[i], frame.items[i + 1]))
                i += 2
            }
            return .map(entries)
        case .indefiniteBytes:
            return .bytes(frame.chunks)
        case .indefiniteText:
            guard let s = String(validating: frame.chunks, as: UTF8.self) else {
                fail(.invalidUTF8(offset: frame.start))
                return nil
            }
            return .text(s)
        case .tag:
            return nil
        }
    }

    /// Whether two keys of `items` (key, value, key, value, …) are equal. A small map's keys
    /// are compared with each other (cheaper than hashing each one; most maps of this
    /// protocol have a few text or integer keys), a larger map's through a set.
    private static func hasDuplicateKey(_ items: [CBOR]) -> Bool {
        let keys = stride(from: 0, to: items.count - 1, by: 2)
        if items.count <= 16 {
            for i in keys {
                for j in stride(from: 0, to: i, by: 2) where items[j] == items[i] { return true }
            }
            return false
        }
        var seen = Set<CBOR>(minimumCapacity: items.count / 2)
        for i in keys where !seen.insert(items[i]).inserted { return true }
        return false
    }

    private func makeTagged(_ tag: UInt64, _ value: CBOR, start: Int) -> CBOR? {
        guard tag == 24 else { return .tagged(tag, value) }
        guard case .bytes(let inner) = value else {
            fail(.invalidEmbeddedCBOR(offset: start, reason: "tag 24 must wrap a byte string"))
            return nil
        }
        let depth = baseDepth + stack.count + 1
        guard depth < limits.maxDepth else {
            fail(.depthLimitExceeded(limit: limits.maxDepth))
            return nil
        }
        var innerLimits = limits
        innerLimits.maxItems = max(0, limits.maxItems - itemCount)
        do {
            let decoded = try inner.withUnsafeBufferPointer { (b) throws(CBORError) -> CBOR in
                try CBOR.decode(b, limits: innerLimits, depth: depth)
            }
            // The whole item as received, from its tag head to the end of its byte string,
            // read (and copied when not preferred) while the input is still alive.
            guard start < stringEnd, stringEnd <= buffer.count else {
                fail(.malformed(offset: start, reason: "tag 24 item ends before it starts"))
                return nil
            }
            return .embedded(EmbeddedCBOR(uncheckedBytes: inner, value: decoded, encoding: buffer[start..<stringEnd]))
        } catch {
            switch error {
            case .depthLimitExceeded, .itemLimitExceeded, .sizeLimitExceeded: fail(error)
            default: fail(.invalidEmbeddedCBOR(offset: start, reason: error.description))
            }
            return nil
        }
    }

    fileprivate func open(_ kind: Frame.Kind, count: Int?) {
        guard error == nil else { return }
        if count == 0 {
            switch kind {
            case .array: return emit(.array([]))
            case .map: return emit(.map([]))
            default: break
            }
        }
        if let kind = topKind {
            switch kind {
            case .indefiniteBytes, .indefiniteText:
                return fail(
                    .malformed(offset: offset, reason: "only definite strings may be chunks of an indefinite string"))
            default: break
            }
        }
        guard countItem() else { return }
        guard baseDepth + stack.count + 1 <= limits.maxDepth else {
            return fail(.depthLimitExceeded(limit: limits.maxDepth))
        }
        var remaining = count
        if let count, case .map = kind { remaining = 2 * count }
        var frame = Frame(kind: kind, remaining: remaining, start: offset)
        if let count, case .array = kind { frame.items.reserveCapacity(count) }
        if let count, case .map = kind { frame.items.reserveCapacity(2 * count) }
        stack.append(frame)
    }

    fileprivate func openDefinite(_ kind: Frame.Kind, declared: Int, perItem: Int) {
        // Each member takes at least one byte: a count the rest of the input cannot hold is
        // refused before anything is reserved for it.
        let available = buffer.count - offset - headLength(buffer[offset])
        // libcbor hands over a size_t: counts of 2^63 and more arrive here negative.
        guard declared >= 0, declared <= available / perItem else {
            return fail(
                .declaredLengthExceedsInput(
                    offset: offset, declared: UInt64(bitPattern: Int64(declared)), available: max(0, available)))
        }
        open(kind, count: declared)
    }

    /// Length of the head that starts with `initial` (RFC 8949 section 3).
    private func headLength(_ initial: UInt8) -> Int {
        switch initial & 0x1F {
        case 24: return 2
        case 25: return 3
        case 26: return 5
        case 27: return 9
        default: return 1
        }
    }

    fileprivate func breakIndefinite() {
        guard error == nil else { return }
        guard let kind = topKind, stack[stack.count - 1].remaining == nil else {
            return fail(.malformed(offset: offset, reason: "break outside an indefinite-length item"))
        }
        if case .tag = kind {
            return fail(.malformed(offset: offset, reason: "break outside an indefinite-length item"))
        }
        if case .map = kind, stack[stack.count - 1].items.count % 2 != 0 {
            return fail(.malformed(offset: offset, reason: "indefinite map ends after a key without a value"))
        }
        let frame = stack.removeLast()
        stringEnd = offset + 1
        if let value = finish(frame) { deliver(value) }
    }

    fileprivate func string(_ data: UnsafePointer<UInt8>?, _ length: Int, text: Bool) {
        guard error == nil else { return }
        if case .indefiniteBytes? = topKind, text {
            return fail(.malformed(offset: offset, reason: "text chunk inside an indefinite byte string"))
        }
        let buffer = UnsafeBufferPointer(start: length == 0 ? nil : data, count: length)
        if text {
            // Decoding repairs ill-formed UTF-8 with U+FFFD, so the text holds exactly the bytes
            // that came in only when they were well-formed (far cheaper than the generic
            // validating initializer on every identifier).
            let s = String(decoding: buffer, as: UTF8.self)
            guard s.utf8.elementsEqual(buffer) else { return fail(.invalidUTF8(offset: offset)) }
            emit(.text(s))
        } else {
            stringEnd = offset + headLength(self.buffer[offset]) + length
            emit(.bytes(Array(buffer)))
        }
    }

    fileprivate static func from(_ context: UnsafeMutableRawPointer?) -> StreamingBuilder {
        Unmanaged<StreamingBuilder>.fromOpaque(context!).takeUnretainedValue()
    }

    // MARK: libcbor callbacks

    private static var callbacks: cbor_callbacks {
        var c = cbor_empty_callbacks
        c.uint8 = { ctx, v in StreamingBuilder.from(ctx).emit(.unsigned(UInt64(v))) }
        c.uint16 = { ctx, v in StreamingBuilder.from(ctx).emit(.unsigned(UInt64(v))) }
        c.uint32 = { ctx, v in StreamingBuilder.from(ctx).emit(.unsigned(UInt64(v))) }
        c.uint64 = { ctx, v in StreamingBuilder.from(ctx).emit(.unsigned(v)) }
        c.negint8 = { ctx, v in StreamingBuilder.from(ctx).emit(.negative(UInt64(v))) }
        c.negint16 = { ctx, v in StreamingBuilder.from(ctx).emit(.negative(UInt64(v))) }
        c.negint32 = { ctx, v in StreamingBuilder.from(ctx).emit(.negative(UInt64(v))) }
        c.negint64 = { ctx, v in StreamingBuilder.from(ctx).emit(.negative(v)) }
        c.byte_string = { ctx, data, length in StreamingBuilder.from(ctx).string(data, length, text: false) }
        c.string = { ctx, data, length in StreamingBuilder.from(ctx).string(data, length, text: true) }
        c.byte_string_start = { ctx in StreamingBuilder.from(ctx).open(.indefiniteBytes, count: nil) }
        c.string_start = { ctx in StreamingBuilder.from(ctx).open(.indefiniteText, count: nil) }
        c.array_start = { ctx, n in StreamingBuilder.from(ctx).openDefinite(.array, declared: n, perItem: 1) }
        c.indef_array_start = { ctx in StreamingBuilder.from(ctx).open(.array, count: nil) }
        c.map_start = { ctx, n in StreamingBuilder.from(ctx).openDefinite(.map, declared: n, perItem: 2) }
        c.indef_map_start = { ctx in StreamingBuilder.from(ctx).open(.map, count: nil) }
        c.tag = { ctx, t in StreamingBuilder.from(ctx).open(.tag(t), count: 1) }
        c.float2 = { ctx, f in StreamingBuilder.from(ctx).emit(.float(Double(f))) }
        c.float4 = { ctx, f in StreamingBuilder.from(ctx).emit(.float(Double(f))) }
        c.float8 = { ctx, d in StreamingBuilder.from(ctx).emit(.float(d)) }
        c.undefined = { ctx in StreamingBuilder.from(ctx).emit(.undefined) }
        c.null = { ctx in StreamingBuilder.from(ctx).emit(.null) }
        c.boolean = { ctx, b in StreamingBuilder.from(ctx).emit(.bool(b)) }
        c.indef_break = { ctx in StreamingBuilder.from(ctx).breakIndefinite() }
        return c
    }
}

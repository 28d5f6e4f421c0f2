import SharedLibrary
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The one caller of the dynamic loader: what it says when a library or a function is missing
/// (the library and the package to install), and that what it finds is callable.
@Suite struct SharedLibraryTests {
    @Test("an absent library is refused with the loader's reason and the package to install")
    func absentLibrary() {
        #expect {
            _ = try SharedLibrary(soname: "libabsent-for-test.so.9", package: "libabsent9", minimumVersion: "1.0")
        } throws: { error in
            let text = (error as? SharedLibraryError)?.description ?? ""
            return text.hasPrefix("libabsent-for-test.so.9 could not be loaded (")
                && text.contains("No such file") && text.hasSuffix("): install the package libabsent9")
        }
    }

    @Test("a function found is the library's and can be called")
    func functionFound() throws {
        let zlib = try SharedLibrary(soname: "libz.so.1", package: "zlib1g", minimumVersion: "1.2")
        #expect(zlib.soname == "libz.so.1")
        let version = try zlib.function("zlibVersion", as: (@convention(c) () -> UnsafePointer<CChar>?).self)
        let text = try #require(version().map { String(cString: $0) })
        #expect(text.hasPrefix("1."))
        #expect(zlib.address(of: "zlibVersion") != nil)
    }

    @Test("a missing function is named with the oldest version of the package that has it")
    func missingFunction() throws {
        let zlib = try SharedLibrary(soname: "libz.so.1", package: "zlib1g", minimumVersion: "1.2")
        #expect(zlib.address(of: "no_such_function_for_test") == nil)
        #expect {
            _ = try zlib.function("no_such_function_for_test", as: UnsafeMutableRawPointer.self)
        } throws: { error in
            (error as? SharedLibraryError)?.description
                == "libz.so.1 has no no_such_function_for_test: install zlib1g 1.2 or later"
        }
    }

    @Test("a table filled through the lookup gets each address, and the first one missing is named")
    func resolve() throws {
        let zlib = try SharedLibrary(soname: "libz.so.1", package: "zlib1g", minimumVersion: "1.2")
        var found: [UnsafeMutableRawPointer?] = []
        try zlib.resolve { lookup, context in
            found = ["zlibVersion", "crc32"].map { name in name.withCString { lookup(context, $0) } }
            return nil
        }
        #expect(found == [zlib.address(of: "zlibVersion"), zlib.address(of: "crc32")])
        #expect(found.allSatisfy { $0 != nil })
        // The name a shim answers is one of its own C strings, which outlive the call.
        let absent = try #require(strdup("inflate_absent"))
        defer { free(absent) }
        #expect {
            try zlib.resolve { lookup, context in lookup(context, absent) == nil ? UnsafePointer(absent) : nil }
        } throws: { error in
            (error as? SharedLibraryError)?.description
                == "libz.so.1 has no inflate_absent: install zlib1g 1.2 or later"
        }
    }
}

import BoundedFile
import Testing

/// The path helpers that replaced NSString's path functions give what NSString gave for the
/// paths the holder builds (store, KEK file, configuration directory), and a name without a
/// directory gives "" where swift-corelibs-foundation's `deletingLastPathComponent` traps.
struct PathTextTests {
    static let directories: [(path: String, directory: String)] = [
        ("/a/b/c", "/a/b"),
        ("/c", "/"),
        ("c", ""),
        ("/", "/"),
        ("a/b/", "a"),
        ("", ""),
    ]

    @Test(arguments: directories)
    func theDirectoryIsThePathWithoutItsLastComponent(path: String, directory: String) {
        #expect(BoundedFile.directory(of: path) == directory)
    }

    @Test func repeatedSlashesAreOneSeparator() {
        #expect(BoundedFile.directory(of: "a//b") == "a")
        #expect(BoundedFile.directory(of: "//a") == "/")
        #expect(BoundedFile.directory(of: "///") == "/")
    }

    @Test func aNameIsJoinedByOneSlash() {
        #expect(BoundedFile.path("/home/u", ".config") == "/home/u/.config")
        #expect(BoundedFile.path("/home/u/", ".config") == "/home/u/.config")
        #expect(BoundedFile.path("/", "etc") == "/etc")
        #expect(BoundedFile.path("", "wallet.sqlite") == "wallet.sqlite")
        #expect(BoundedFile.path("data", "mdoc-holder/kek") == "data/mdoc-holder/kek")
    }

    @Test func aDirectoryAndItsJoinGiveThePathBack() {
        for path in ["/a/b/c", "/c", "a/b"] {
            let name = String(path.split(separator: "/").last!)
            #expect(BoundedFile.path(BoundedFile.directory(of: path), name) == path)
        }
    }
}

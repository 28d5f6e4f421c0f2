extension BoundedFile {
    /// The directory part of `path`, as a shell's `dirname` without the dot: "/a/b/c" gives
    /// "/a/b", "/c" gives "/", "c" gives "" (the current directory). Trailing slashes of
    /// `path` are not a component.
    public static func directory(of path: String) -> String {
        var text = Substring(path)
        while text.count > 1, text.last == "/" { text = text.dropLast() }
        guard let slash = text.lastIndex(of: "/") else { return "" }
        var directory = text[..<slash]
        while directory.count > 1, directory.last == "/" { directory = directory.dropLast() }
        return directory.isEmpty ? "/" : String(directory)
    }

    /// `directory` and `name` joined by one slash ("" and "a" give "a").
    public static func path(_ directory: String, _ name: String) -> String {
        guard !directory.isEmpty else { return name }
        return directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}

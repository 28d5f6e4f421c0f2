extension StringProtocol {
    /// Without spaces and tabs at either end: HTTP's optional white space (RFC 9110 section
    /// 5.6.3, `OWS = *( SP / HTAB )`) around a header's name and value, and around a proxy
    /// setting read from the environment.
    func trimmingSpacesAndTabs() -> String {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isBlank($0) }), let last = lastIndex(where: { !isBlank($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}

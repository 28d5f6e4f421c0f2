import CCurl

/// The options of one easy handle, as a transfer sets them: each setter keeps libcurl's first
/// failure (``failed``) rather than stopping at it, and the lists the handle points to
/// (``lists``), which must outlive the transfer and are freed after it (``freeLists()``).
struct CurlEasyOptions {
    let handle: UnsafeMutableRawPointer
    private(set) var failed: CURLcode = CURLE_OK
    private(set) var lists: [UnsafeMutablePointer<curl_slist>] = []

    init(_ handle: UnsafeMutableRawPointer) {
        self.handle = handle
    }

    /// Keeps `code` when it is the first failure.
    mutating func check(_ code: CURLcode) {
        if code != CURLE_OK, failed == CURLE_OK { failed = code }
    }

    mutating func long(_ option: CURLoption, _ value: Int) {
        check(mdoc_curl_setopt_long(handle, option, value))
    }

    mutating func offset(_ option: CURLoption, _ value: Int) {
        check(mdoc_curl_setopt_offset(handle, option, curl_off_t(value)))
    }

    /// Copied by libcurl.
    mutating func string(_ option: CURLoption, _ value: String) {
        check(mdoc_curl_setopt_string(handle, option, value))
    }

    mutating func pointer(_ option: CURLoption, _ value: UnsafeMutableRawPointer?) {
        check(mdoc_curl_setopt_pointer(handle, option, value))
    }

    /// A list of lines (headers, `CONNECT_TO` entries), kept until ``freeLists()``.
    mutating func list(_ option: CURLoption, _ lines: [String]) {
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            guard let longer = curl_slist_append(list, line) else {
                curl_slist_free_all(list)
                return check(CURLE_OUT_OF_MEMORY)
            }
            list = longer
        }
        if let list { lists.append(list) }
        check(mdoc_curl_setopt_slist(handle, option, list))
    }

    /// Frees the lists: after the transfer, or when it never starts.
    func freeLists() {
        for list in lists { curl_slist_free_all(list) }
    }
}

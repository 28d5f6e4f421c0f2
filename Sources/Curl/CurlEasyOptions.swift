import CCurl

/// The options of one easy handle, as a transfer sets them: each setter keeps libcurl's first
/// failure (``failed``) rather than stopping at it, and the lists the handle points to
/// (``lists``), which must outlive the transfer and are freed after it (``freeLists()``).
struct CurlEasyOptions {
    let handle: UnsafeMutableRawPointer
    let curl: CurlLibrary
    private(set) var failed: CURLcode = CURLE_OK
    private(set) var lists: [UnsafeMutablePointer<curl_slist>] = []

    init(_ handle: UnsafeMutableRawPointer, curl: CurlLibrary) {
        self.handle = handle
        self.curl = curl
    }

    /// Keeps `code` when it is the first failure.
    mutating func check(_ code: CURLcode) {
        if code != CURLE_OK, failed == CURLE_OK { failed = code }
    }

    mutating func long(_ option: CURLoption, _ value: Int) {
        check(mdoc_curl_setopt_long(curl.easySetopt, handle, option, value))
    }

    mutating func offset(_ option: CURLoption, _ value: Int) {
        check(mdoc_curl_setopt_offset(curl.easySetopt, handle, option, curl_off_t(value)))
    }

    /// Copied by libcurl.
    mutating func string(_ option: CURLoption, _ value: String) {
        check(mdoc_curl_setopt_string(curl.easySetopt, handle, option, value))
    }

    mutating func pointer(_ option: CURLoption, _ value: UnsafeMutableRawPointer?) {
        check(mdoc_curl_setopt_pointer(curl.easySetopt, handle, option, value))
    }

    /// A list of lines (headers, `CONNECT_TO` entries), kept until ``freeLists()``.
    mutating func list(_ option: CURLoption, _ lines: [String]) {
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            guard let longer = curl.slistAppend(list, line) else {
                curl.slistFreeAll(list)
                return check(CURLE_OUT_OF_MEMORY)
            }
            list = longer
        }
        if let list { lists.append(list) }
        check(mdoc_curl_setopt_slist(curl.easySetopt, handle, option, list))
    }

    /// Frees the lists: after the transfer, or when it never starts.
    func freeLists() {
        for list in lists { curl.slistFreeAll(list) }
    }
}

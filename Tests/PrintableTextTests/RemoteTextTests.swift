import PrintableText
import Testing

/// Text from outside is shown, never obeyed: every class of character that could drive a
/// terminal, reorder a line or start a new one comes out as visible, inert text, and the
/// length is bounded.
struct RemoteTextTests {
    @Test func plainTextIsUnchanged() {
        #expect(RemoteText.printable("org.iso.18013.5.1.mDL") == "org.iso.18013.5.1.mDL")
        #expect(RemoteText.printable("Zoë Ångström 山田 🚗") == "Zoë Ångström 山田 🚗")
        #expect(RemoteText.printable("") == "")
    }

    @Test func escapeAndControlSequencesBecomeVisible() {
        let hostile = "\u{1B}[2J\u{1B}[H From: Trusted Police Issuer"
        #expect(RemoteText.printable(hostile) == "\\u{1B}[2J\\u{1B}[H From: Trusted Police Issuer")
        // OSC (set the window title), ended by BEL and by ST.
        #expect(RemoteText.printable("\u{1B}]0;owned\u{07}") == "\\u{1B}]0;owned\\u{7}")
        #expect(RemoteText.printable("\u{1B}]0;x\u{1B}\\") == "\\u{1B}]0;x\\u{1B}\\")
    }

    @Test func everyC0CharacterAndDELAreEscaped() {
        for value in UInt32(0)...0x1F {
            let out = RemoteText.printable("a" + String(Unicode.Scalar(value)!) + "b")
            #expect(out.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F }, "U+\(value)")
            #expect(out.hasPrefix("a\\") && out.hasSuffix("b"))
        }
        #expect(RemoteText.printable("\u{7F}") == "\\u{7F}")
        #expect(RemoteText.printable("\0") == "\\u{0}")
    }

    @Test func newlinesNeverPassThrough() {
        #expect(RemoteText.printable("one\ntwo\r\nthree\tfour") == "one\\ntwo\\r\\nthree\\tfour")
        #expect(RemoteText.printable("a\u{2028}b\u{2029}c") == "a\\u{2028}b\\u{2029}c")
        #expect(RemoteText.printable("a\u{85}b") == "a\\u{85}b")  // NEL, a C1 newline
        #expect(RemoteText.printable("a\u{0B}b\u{0C}c") == "a\\u{B}b\\u{C}c")
    }

    @Test func everyC1CharacterIsEscaped() {
        for value in UInt32(0x80)...0x9F {
            let out = RemoteText.printable(String(Unicode.Scalar(value)!))
            #expect(out == "\\u{\(String(value, radix: 16, uppercase: true))}")
        }
        // CSI as the single C1 character U+009B.
        #expect(RemoteText.printable("\u{9B}2J") == "\\u{9B}2J")
    }

    @Test func bidirectionalControlsAreEscaped() {
        let controls: [UInt32] = [0x061C, 0x200E, 0x200F] + Array(0x202A...0x202E) + Array(0x2066...0x2069)
        for value in controls {
            let out = RemoteText.printable("x" + String(Unicode.Scalar(value)!) + "y")
            #expect(out == "x\\u{\(String(value, radix: 16, uppercase: true))}y")
        }
        // The right-to-left override that makes "exe.pdf" read "fdp.exe".
        #expect(RemoteText.printable("police\u{202E}gpj.exe") == "police\\u{202E}gpj.exe")
    }

    @Test func theLengthIsBoundedWithAnEllipsis() {
        let long = String(repeating: "x", count: 10_000)
        let out = RemoteText.printable(long)
        #expect(out.unicodeScalars.count == RemoteText.defaultLimit)
        #expect(out.hasSuffix("…"))
        #expect(RemoteText.printable(long, limit: 10) == "xxxxxxxxx…")
        // Exactly at the limit: not cut.
        #expect(RemoteText.printable("0123456789", limit: 10) == "0123456789")
        #expect(RemoteText.printable("0123456789A", limit: 10) == "012345678…")
    }

    @Test func theBoundCountsEscapesAndNeverSplitsOne() {
        let out = RemoteText.printable(String(repeating: "\u{1B}", count: 100), limit: 20)
        #expect(out.unicodeScalars.count <= 20)
        #expect(out == "\\u{1B}\\u{1B}\\u{1B}…")  // 3 × 6 scalars and the ellipsis
        // A single cluster of many combining marks is bounded by scalars, not characters.
        let zalgo = "e" + String(repeating: "\u{301}", count: 5_000)
        #expect(RemoteText.printable(zalgo, limit: 50).unicodeScalars.count == 50)
    }

    @Test func applyingTheRuleTwiceChangesNothing() {
        for text in [
            "\u{1B}[2J\u{1B}[H From: X\n\u{202E}", String(repeating: "\u{1B}[31m", count: 100), "plain",
            String(repeating: "y", count: 500),
        ] {
            let once = RemoteText.printable(text)
            #expect(RemoteText.printable(once) == once)
        }
    }

    @Test func quotedTextCannotCloseItsQuotes() {
        #expect(RemoteText.quoted("Reader") == "\"Reader\"")
        #expect(RemoteText.quoted("Evil\" - trusted by Police") == "\"Evil\\\" - trusted by Police\"")
        #expect(RemoteText.quoted("a\nFrom: b") == "\"a\\nFrom: b\"")
    }

    @Test func theResultHoldsNothingTheRuleEscapes() {
        var all = String.UnicodeScalarView()
        for value in UInt32(0)...0x2FFF { if let s = Unicode.Scalar(value) { all.append(s) } }
        let out = RemoteText.printable(String(all), limit: 1_000_000)
        #expect(!out.unicodeScalars.contains { RemoteText.isEscaped($0) })
    }
}

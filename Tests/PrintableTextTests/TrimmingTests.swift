import PrintableText
import Testing

/// Trimming takes white space off the ends only, and agrees with Foundation's character sets
/// on the characters pasted and configuration text bring.
struct TrimmingTests {
    @Test func whitespaceTrimmingTakesLineEndsTabsAndUnicodeSpacesOffBothEnds() {
        #expect(" \t\r\n openid4vp://x?a=b \n\u{00A0}\u{2028}".trimmingWhitespace() == "openid4vp://x?a=b")
        #expect("a b\n c".trimmingWhitespace() == "a b\n c")
        #expect(" \n\t ".trimmingWhitespace() == "")
        #expect("".trimmingWhitespace() == "")
    }

    @Test func blankTrimmingKeepsLineEnds() {
        #expect("\t key = v \u{3000}".trimmingBlanks() == "key = v")
        #expect("\nvalue \r\n".trimmingBlanks() == "\nvalue \r\n")
        #expect(" x\n ".trimmingBlanks() == "x\n")
    }

    @Test func substringsAreTrimmedWithinTheirBounds() {
        let line = "[ GATT ]"
        let inner = line.dropFirst().dropLast()
        #expect(inner.trimmingBlanks() == "GATT")
    }

    @Test func combiningMarksAfterASpaceAreNotWhiteSpace() {
        // A space followed by a combining accent is one Character but two scalars: only the
        // scalars that are white space go.
        #expect("x \u{301}".trimmingWhitespace() == "x \u{301}")
    }
}

import OAuthWeb
import Testing

/// `application/x-www-form-urlencoded` as OAuth query strings and direct_post bodies carry it.
@Suite struct FormEncodingTests {
    @Test func encodesEveryByteOutsideTheUnreservedSetAndSpacesAsPlus() {
        #expect(FormEncoding.encode([("a b", "x&y=z"), ("k", "é~*-._")]) == "a+b=x%26y%3Dz&k=%C3%A9%7E*-._")
    }

    @Test func decodingUndoesEncodingInOrder() throws {
        let fields = [("redirect_uri", "https://h.example/cb?x=1"), ("state", "a b+c"), ("empty", "")]
        let decoded = try #require(FormEncoding.decode(FormEncoding.encode(fields)))
        #expect(decoded.map(\.name) == fields.map(\.0))
        #expect(decoded.map(\.value) == fields.map(\.1))
    }

    @Test func aBrokenEscapeOrBytesThatAreNotUTF8AreRefused() {
        #expect(FormEncoding.decode("a=%4") == nil)
        #expect(FormEncoding.decode("a=%zz") == nil)
        #expect(FormEncoding.decode("a=%FF") == nil)
        #expect(FormEncoding.decode("flag&&b=1").map { $0.map(\.name) } == ["flag", "b"])
    }

    @Test func aFormBodyKeepsItsFieldsInOrderAndFindsTheFirstValue() {
        let body = FormBody([.init("vp_token", "t1"), .init("state", "s"), .init("vp_token", "t2")])
        #expect(body["vp_token"] == "t1")
        #expect(body["missing"] == nil)
        #expect(body.encoded == "vp_token=t1&state=s&vp_token=t2")
        #expect(FormBody.contentType == "application/x-www-form-urlencoded")
    }
}

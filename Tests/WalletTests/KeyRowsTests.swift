import Testing

@testable import Wallet

/// The `keys` table's column lists: the joined one (written out, for the start's sake) is the
/// plain one with each column taken from `k`.
struct KeyRowsTests {
    @Test("the joined columns are the columns of k, in order")
    func joinedColumnsAreTheColumnsOfK() {
        let columns = KeyRows.columns.split(separator: ", ").map { "k." + $0 }
        #expect(columns.count == 7)
        #expect(KeyRows.joinedColumns == columns.joined(separator: ", "))
    }
}

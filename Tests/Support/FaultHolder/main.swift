// mdoc-fault-holder: the real holder loop (ProximityHolder) over BlueZ in mdoc
// peripheral-server mode, with the fault named by MDOC_FAULT (BLETestSupport.HolderFault), for
// showing that `mdoc-reader conformance` catches it. Test support for
// Tests/Support/conformance-test.sh only; never installed. Consent approves every request;
// readers not chaining to READER_CA are refused unless the fault releases to them.
//
//   MDOC_FAULT=NAME mdoc-fault-holder ADAPTER MDOC_CBOR DEVICE_KEY_PEM READER_CA_PEM
//
// Prints the engagement's mdoc: URI on standard output, runs one session, exits 0.
import BLEBlueZ
import BLETestSupport
import BlueZ
import Consent
import Foundation
import ISO18013
import MdocCrypto
import Presentation
import Proximity

struct ApproveAll: ConsentPrompt {
    func decide(_ request: ConsentRequest) async -> ConsentDecision { .approveAll(request) }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("mdoc-fault-holder: \(message)\n".utf8))
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count == 5 else { fail("usage: MDOC_FAULT=NAME mdoc-fault-holder ADAPTER MDOC DEVICE_KEY READER_CA") }
let faultName = ProcessInfo.processInfo.environment["MDOC_FAULT"] ?? ""
let fault = faultName.isEmpty ? nil : HolderFault(rawValue: faultName)
if !faultName.isEmpty, fault == nil {
    fail("unknown MDOC_FAULT \(faultName); one of \(HolderFault.allCases.map(\.rawValue))")
}

let credential: PresentableCredential
let readerCA: [Certificate]
do {
    let issuerSigned = try IssuerSigned(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: arguments[2]))))
    let key = try PrivateKey(pem: String(contentsOfFile: arguments[3], encoding: .utf8))
    credential = PresentableCredential(
        id: "fault-holder", docType: "org.iso.18013.5.1.mDL", issuerSigned: issuerSigned, deviceKey: key)
    readerCA = try Certificate.parsePEM(String(contentsOfFile: arguments[4], encoding: .utf8))
} catch {
    fail("cannot read the credential or the reader CA: \(error)")
}

do {
    let client = try await BlueZClient.connect(busAddress: nil)
    let roles = BlueZRoles.holder(client: client, adapter: arguments[1], l2cap: false) { _ in }
    var configuration = HolderFault.configuration(fault, readerCA: readerCA)
    configuration.sessionIdleTimeout = .seconds(30)
    var holder = ProximityHolder(
        server: FaultyGattServer(roles.server, fault: fault), credentials: [credential],
        configuration: configuration,
        consent: ApproveAll())
    holder.tickInterval = .milliseconds(200)
    let result = try await holder.runSession(showEngagement: { engagement in
        FileHandle.standardOutput.write(Data((HolderFault.shownURI(engagement, fault) + "\n").utf8))
    })
    FileHandle.standardError.write(
        Data("mdoc-fault-holder (\(faultName.isEmpty ? "no fault" : faultName)): \(result.endDescription)\n".utf8))
} catch {
    fail("\(error)")
}

#!/usr/bin/env python3
"""The layers of the package, and the check that every import keeps to them.

    Tests/Support/check-layers.py           check (exit 1 with one line per problem)
    Tests/Support/check-layers.py --table   print the layer table (markdown)
    Tests/Support/check-layers.py --write   rewrite the table in docs/architecture.md
    Tests/Support/check-layers.py --self-test   the check on a made-up package

The targets and their dependencies come from `swift package dump-package` (exact); the
imports from every Swift file of each target. A problem is:
  - a target of this package imported but not declared as a dependency (declare it);
  - a target imported from a higher layer than the importer's own (move the code down, or
    the import up);
  - a target with no layer here, or a C library declared by more than one target;
  - docs/architecture.md's table differing from the one generated here, or a path it names
    (in backquotes) missing;
  - a ``Type`` link of a target's DocC catalog naming no type of that target.

LAYERS below is the one place the layers live: a layer may import its own layer and every
layer below it. A name here whose target does not exist yet is skipped (a note under
--verbose), so a target can be given its layer before it lands.
"""

import json
import os
import re
import subprocess
import sys
import tempfile

# (layer, what it is, [(target, what it is for)]), bottom first.
LAYERS = [
    ("C library", "system-library targets: pkg-config and a module map, nothing else", [
        ("CLibCBOR", "libcbor"),
        ("COpenSSL", "OpenSSL 3 (libcrypto)"),
        ("CQRencode", "libqrencode"),
        ("CSQLite", "sqlite3's declarations; SQLite loads the library at first use"),
        ("CDBus", "the part of libdbus-1's ABI DBus uses, declared itself; DBus loads the library at first use"),
        ("CBluetooth", "BlueZ's declarations of the kernel's Bluetooth sockets (L2CAP); no library linked"),
        ("CPKCS11", "PKCS#11's declarations; PKCS11 loads p11-kit (module loading) at first use"),
        ("CCurl", "libcurl's declarations (the OpenSSL flavour); Curl loads the library at first use"),
        ("CZlib", "zlib"),
    ]),
    ("C wrapper", "the one Swift target that calls each C library, behind types that own their memory", [
        ("SharedLibrary", "the dynamic loader: libraries loaded by name when first needed, their functions found"),
        ("CBOR", "CBOR values; libcbor's decoder under depth, item and size limits; preferred encoding; tag 24"),
        ("MdocCrypto", "keys, ECDH, ECDSA/EdDSA, HKDF, AES-GCM, HMAC, SHA-2, X.509 parsing, building, validation"),
        ("QRCode", "QR symbols, drawn on a terminal with half blocks or written as PNG (deflated by Zlib)"),
        ("SQLite", "the database wrapper"),
        ("DBus", "libdbus: typed values (fds too), async calls, signals, exported objects"),
        ("L2CAP", "LE credit-based channels: listen on a dynamic PSM, accept, connect"),
        ("Curl", "HTTPS exchanges: total deadline, size cap, https only, every address checked before a socket"),
        ("Zlib", "zlib inflate and deflate, inflate capped (a deflate bomb stops at the cap)"),
        ("PKCS11", "PKCS#11 modules, sessions, EC key pairs, CKM_ECDSA, CKM_ECDH1_DERIVE"),
    ]),
    ("foundation", "values and services every protocol shares; no protocol knowledge, no C", [
        ("Bluetooth", "Bluetooth values every layer shares (one UUID type)"),
        ("BoundedFile", "reading files from outside with a size limit"),
        ("PrintableText", "the one rule for outside text on its way to a terminal, a log or an error"),
        ("ProjectVersion", "the version `--version` prints (held equal to VERSION by `make version-check`)"),
        ("SecureArea", "device keys: the SecureArea interface; software (wrapped under a KEK), TPM 2.0, PKCS#11 areas"),
        ("OAuthWeb", "what OAuth parties share on the web: form encoding, URLs, https issuer identifiers"),
        ("ConfigFile", "configuration files (kiosk policy, pre-registered verifiers) read as TOML"),
        ("Base64", "base64url (RFC 4648 section 5), as the mdoc: URI and JOSE write it"),
    ]),
    ("data model", "the standards' structures, their encodings and checks; sans-I/O", [
        ("COSE", "COSE_Key, COSE_Sign1, COSE_Mac0, x5chain"),
        ("ISO18013", "18013-5: engagement, session encryption, requests, responses, MSO, authentication, handovers"),
        ("VICAL", "18013-5 Annex C.1.7 trust lists: parsing, signature and signer checks, IACAs scoped by docType"),
        ("TokenStatusList", "Token Status Lists: references, the bit-packed list, CWT and JWT tokens and their checks"),
        ("JOSE", "JWS, JWE, JWK"),
        ("SDJWT", "SD-JWT (RFC 9901): Disclosures, processing, presentations with a Key Binding JWT"),
        ("SDJWTPresentable", "an SD-JWT VC the holder can present: the credential and its key-binding key"),
        ("Consent", "the consent request and decision every flow and front-end shares"),
    ]),
    ("engine", "sans-I/O protocol engines: bytes and events in, bytes and events out", [
        ("BLETransport", "18013-5 BLE without I/O: chunking, GATT role state machines, Ident, L2CAP framing, seams"),
        ("Presentation", "holder and reader engines for mdocs and SD-JWT VCs; response verification"),
        ("OpenID4VP", "OpenID4VP 1.0: requests, verifier trust, DCQL, responses"),
        ("OpenID4VCI", "OpenID4VCI 1.0: offers, metadata, PKCE, token/credential messages, key and DPoP proofs"),
        ("MdocIssuer", "test issuer: test PKI, MSO signing, mDL claims"),
    ]),
    ("I/O adapter", "the engines' seams filled with real I/O: D-Bus, BLE, SQLite, HTTPS, files, terminal", [
        ("BlueZ", "BlueZ D-Bus client: adapters, advertising, GATT server and client; knows nothing of mdocs"),
        ("BLEBlueZ", "the GATT server and client roles and L2CAP sockets on BlueZ, shared by holder and reader"),
        ("Wallet", "credential store (credentials, copies, key rows, pending issuances) and history"),
        ("ConsentPolicy", "the kiosk policy file (TOML): which readers may receive which elements"),
        ("TerminalConsent", "the consent prompt on the controlling terminal"),
        ("OnlineTransport", "HTTPS for the online flows: issuer and verifier endpoints as typed calls, address policy"),
    ]),
    ("application", "the holder's and the reader's flows, built from engines and adapters", [
        ("OnlineFlows", "the online presentation and issuance flows, step by step"),
        ("Proximity", "the holder's BLE loop: engagement, the mode race, framing, engine, consent"),
        ("ProximityReader", "the reader's BLE side: the mode from the engagement, a message channel in either mode"),
        ("Conformance", "`mdoc-reader conformance`: TS 18013-6 style holder test cases, evidence, reports"),
        ("HolderRuntime", "a holder built once from settings: present (proximity, online), receive, one outcome"),
    ]),
    ("front end", "what parses, marshals and prints; no protocol logic", [
        ("HolderService", "`mdoc-holder serve`: the D-Bus service (Holder1, agent consent, sessions, kiosk)"),
        ("CommandLineSupport", "what the command-line tools share: certificate files, `--consent`, output"),
    ]),
    ("executable", "the programs", [
        ("mdoc-holder", "the holder: present, serve, credentials (CLI, daemon, D-Bus API)"),
        ("mdoc-reader", "the reader: read a holder over BLE, conformance runs"),
        ("mdoc-issuer", "test issuer: test credentials, a reader's trust list"),
        ("mdoc-demo", "`make demo`: a holder and a reader in one process"),
        ("MdocBenchmarks", "`make bench`: engine and crypto timings"),
        ("BLEBenchmarks", "`make bench-ble`: BLE figures through bluetoothd and of the link alone"),
        ("CBORFuzzer", "fuzz targets for every decoder of outside bytes (docs/fuzzing.md)"),
    ]),
    ("test support", "test doubles and fixtures shared by test targets; never shipped", [
        ("TestSupport", "loads the standard's vectors and the fixtures"),
        ("BLETestSupport", "in-memory GATT and L2CAP channels, test holders and readers"),
    ]),
    ("test", "tests and test-only programs; may import every layer", [
        ("mdoc-fault-holder", "a holder with switchable faults (MDOC_FAULT) for the conformance tier"),
    ]),
]
# Every `.testTarget` is in the last layer without being named above.
TEST_LAYER = LAYERS[-1][0]

# Modules of the toolchain and the OS: importable by every target.
SYSTEM_MODULES = {
    "Swift", "_Concurrency", "_StringProcessing", "Foundation", "FoundationEssentials",
    "FoundationInternationalization", "FoundationNetworking", "FoundationXML", "Glibc", "Musl",
    "Darwin", "Android", "WinSDK", "ucrt", "Dispatch", "Synchronization", "RegexBuilder",
    "Observation", "Distributed", "Testing", "XCTest", "os",
}
# Products of other packages whose modules are not named like the product.
PRODUCT_MODULES = {}

DOC = "docs/architecture.md"
BEGIN = "<!-- layer table: generated by `make architecture-table` (Tests/Support/check-layers.py) -->"
END = "<!-- end of layer table -->"

# A path the doc names: `Sources/...`, `Tests/...`, ... in backquotes, without placeholders.
PATH = re.compile(r"`((?:Sources|Tests|dbus|docs|udev|Fixtures|packaging)/[^`<>*\s]*)`")

# A DocC link to a type (``Name``), and a type's declaration.
SYMBOL_LINK = re.compile(r"``([A-Za-z_][A-Za-z0-9_]*)``")
DECLARATION = re.compile(r"\b(?:struct|enum|class|actor|protocol|typealias)\s+([A-Za-z_][A-Za-z0-9_]*)")

IMPORT = re.compile(
    r"^\s*(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*"
    r"(?:(?:public|package|internal|fileprivate|private)\s+)?"
    r"import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?"
    r"([A-Za-z_][A-Za-z0-9_]*)")


def dump_package(root):
    """Package.swift as SwiftPM reads it. A scratch directory of its own: the manifest alone is
    read, and a build holding .build's lock does not make the check wait."""
    swift = os.environ.get("SWIFT", "swift")
    with tempfile.TemporaryDirectory() as scratch:
        out = subprocess.run([swift, "package", "--package-path", root, "--scratch-path", scratch, "dump-package"],
                             check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def target_dir(root, target):
    if target.get("path"):
        return os.path.join(root, target["path"])
    top = "Tests" if target["type"] == "test" else "Sources"
    return os.path.join(root, top, target["name"])


def declared_modules(target):
    """Module names the target declares: targets by name, products by their modules."""
    names = set()
    for dep in target["dependencies"]:
        kind, value = next(iter(dep.items()))
        if kind in ("byName", "target"):
            names.add(value[0])
        elif kind == "product":
            names.update(PRODUCT_MODULES.get(value[0], [value[0]]))
    return names


def imports(path):
    """(line number, module) of every import statement of a Swift file, comments and
    multi-line strings skipped."""
    found = []
    in_comment = in_string = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            stripped = line.strip()
            if in_comment:
                in_comment = "*/" not in stripped
                continue
            if in_string:
                in_string = stripped.count('"""') % 2 == 0
                continue
            if stripped.startswith("/*") and "*/" not in stripped:
                in_comment = True
                continue
            if stripped.count('"""') % 2 == 1:
                in_string = True
                continue
            match = IMPORT.match(line)
            if match:
                found.append((number, match.group(1)))
    return found


def swift_files(directory):
    for base, dirs, files in os.walk(directory):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".swift"):
                yield os.path.join(base, name)


def layer_of(targets):
    """target name -> layer index; targets missing from LAYERS are absent."""
    index = {}
    for number, (_, _, entries) in enumerate(LAYERS):
        for name, _ in entries:
            index[name] = number
    result = {}
    for target in targets:
        if target["name"] in index:
            result[target["name"]] = index[target["name"]]
        elif target["type"] == "test":
            result[target["name"]] = len(LAYERS) - 1
    return result


def table(targets):
    names = {t["name"] for t in targets}
    has_tests = any(t["type"] == "test" for t in targets)
    lines = [f"{number}. **{layer}**: {about}" for number, (layer, about, _) in enumerate(LAYERS, 1)]
    lines += ["", "| layer | target | what it is for |", "|---|---|---|"]
    for layer, _, entries in LAYERS:
        present = [(f"`{n}`", d) for n, d in entries if n in names]
        if layer == TEST_LAYER and has_tests:
            present.append(("every `.testTarget`", "the tests of a target, `Tests/<Target>Tests`"))
        for i, (name, description) in enumerate(present):
            lines.append(f"| {layer if i == 0 else ''} | {name} | {description} |")
    return "\n".join(lines) + "\n"


def doc_table(root):
    path = os.path.join(root, DOC)
    if not os.path.exists(path):
        return None, None
    text = open(path, encoding="utf-8").read()
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        return text, None
    return text, text[start + len(BEGIN):end].strip("\n") + "\n"


def check(root, targets, verbose):
    problems = []
    by_name = {t["name"]: t for t in targets}
    # A target whose name is not an identifier is imported by its module name: mdoc_holder.
    by_module = {n.replace("-", "_"): n for n in by_name if "-" in n}
    layers = layer_of(targets)
    known = {n for _, _, entries in LAYERS for n, _ in entries}
    for name in sorted(known - set(by_name)):
        if verbose:
            print(f"note: {name} has a layer but no target yet", file=sys.stderr)
    for target in targets:
        if target["name"] not in layers:
            problems.append(f"{target['name']}: no layer: add it to LAYERS in Tests/Support/check-layers.py")
    declarers = {}
    for target in targets:
        for dep in declared_modules(target):
            if dep in by_name and by_name[dep]["type"] == "system":
                declarers.setdefault(dep, []).append(target["name"])
    for library, users in sorted(declarers.items()):
        if len(users) > 1:
            problems.append(f"{library}: a C library declared by {', '.join(sorted(users))}: "
                            "only its one wrapper may reach it; go through that wrapper")
    for target in targets:
        if target["type"] == "system":
            continue
        name = target["name"]
        declared = declared_modules(target)
        # module -> every place it is imported: one problem per module, at its first import.
        places = {}
        for path in swift_files(target_dir(root, target)):
            for line, module in imports(path):
                module = by_module.get(module, module)
                if module != name and module not in SYSTEM_MODULES:
                    places.setdefault(module, []).append(f"{os.path.relpath(path, root)}:{line}")
        for module, where in places.items():
            more = f" (and {len(where) - 1} more)" if len(where) > 1 else ""
            at = f"{name}: {where[0]}{more}: import {module}"
            if module in by_name:
                if module not in declared:
                    problems.append(f"{at}: not declared: add \"{module}\" to {name}'s dependencies in Package.swift")
                if name in layers and module in layers and layers[module] > layers[name]:
                    problems.append(
                        f"{at}: {module} is in layer '{LAYERS[layers[module]][0]}', above {name}'s "
                        f"'{LAYERS[layers[name]][0]}': move the code that needs it up, or what it needs down")
            elif module not in declared:
                problems.append(f"{at}: not a target of this package, a declared product or a system module: "
                                "declare its product in Package.swift")
    text, current = doc_table(root)
    if text is None:
        problems.append(f"{DOC}: missing")
    elif current is None:
        problems.append(f"{DOC}: no layer table between its marker comments")
    elif current != table(targets):
        problems.append(f"{DOC}: the layer table differs from LAYERS and Package.swift: "
                        "run make architecture-table")
    if text is not None:
        problems += missing_paths(root, text)
    for target in targets:
        if target["type"] != "system":
            problems += broken_symbol_links(root, target)
    return problems


def broken_symbol_links(root, target):
    """``Type`` links of the target's DocC catalog that name no type declared in the target
    (`swift build` does not read the catalogs; this keeps them true)."""
    directory = target_dir(root, target)
    catalogs = [os.path.join(directory, n) for n in sorted(os.listdir(directory)) if n.endswith(".docc")] \
        if os.path.isdir(directory) else []
    if not catalogs:
        return []
    declared = {target["name"]}
    for path in swift_files(directory):
        with open(path, encoding="utf-8") as f:
            declared.update(DECLARATION.findall(f.read()))
    problems = []
    for catalog in catalogs:
        for base, _, files in os.walk(catalog):
            for name in sorted(f for f in files if f.endswith(".md")):
                path = os.path.join(base, name)
                with open(path, encoding="utf-8") as f:
                    for number, line in enumerate(f, 1):
                        for symbol in SYMBOL_LINK.findall(line):
                            if symbol not in declared:
                                problems.append(
                                    f"{os.path.relpath(path, root)}:{number}: ``{symbol}`` is not a type of "
                                    f"{target['name']}: link what it is now, or write it in single backquotes")
    return problems


def missing_paths(root, text):
    """The doc's paths in backquotes that do not exist: the map must follow the code."""
    problems = []
    for number, line in enumerate(text.splitlines(), 1):
        for path in PATH.findall(line):
            if not os.path.exists(os.path.join(root, path)):
                problems.append(f"{DOC}:{number}: {path} does not exist: name where it lives now")
    return problems


def write_doc(root, targets):
    text, current = doc_table(root)
    if current is None:
        sys.exit(f"{DOC}: no table markers ({BEGIN} ... {END})")
    start, end = text.find(BEGIN) + len(BEGIN), text.find(END)
    with open(os.path.join(root, DOC), "w", encoding="utf-8") as f:
        f.write(text[:start] + "\n" + table(targets) + text[end:])


def self_test():
    """The check on a made-up package: each kind of problem is found, a clean one passes."""
    def target(name, deps, kind="regular"):
        return {"name": name, "type": kind, "path": None, "dependencies": [{"byName": [d, None]} for d in deps]}

    def write(root, path, text):
        os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
        with open(os.path.join(root, path), "w", encoding="utf-8") as f:
            f.write(text)

    with tempfile.TemporaryDirectory() as root:
        write(root, "Sources/Wallet/A.swift",
              "import Foundation\n@testable import CBOR\ninternal import struct HolderService.X\n"
              "/*\nimport Proximity\n*/\nlet s = \"\"\"\nimport Proximity\n\"\"\"\nimport Nowhere\n")
        write(root, "Sources/Unplaced/B.swift", "import Wallet\n")
        write(root, "Sources/SQLite/C.swift", "import CSQLite\n")
        write(root, "Sources/BlueZ/D.swift", "import CSQLite\n")
        targets = [target("CSQLite", [], "system"), target("SQLite", ["CSQLite"]), target("BlueZ", ["CSQLite"]),
                   target("CBOR", []), target("HolderService", ["Wallet"]),
                   target("Wallet", ["HolderService"]), target("Unplaced", ["Wallet"])]
        write(root, DOC, f"{BEGIN}\n{table(targets)}{END}\n`Sources/Wallet/A.swift` `Sources/Gone.swift`\n")
        write(root, "Sources/CBOR/CBOR.docc/CBOR.md", "# ``CBOR``\n\n``CBORValue`` ``Gone``\n")
        write(root, "Sources/CBOR/V.swift", "public enum CBORValue {}\n")
        found = check(root, targets, False)
        expected = [
            "Wallet: Sources/Wallet/A.swift:2: import CBOR: not declared",
            "Wallet: Sources/Wallet/A.swift:3: import HolderService: HolderService is in layer 'front end', above",
            "Wallet: Sources/Wallet/A.swift:10: import Nowhere: not a target of this package",
            "Unplaced: no layer",
            "CSQLite: a C library declared by BlueZ, SQLite",
            f"{DOC}:", "Sources/Gone.swift does not exist",
            "Sources/CBOR/CBOR.docc/CBOR.md:3: ``Gone`` is not a type of CBOR",
        ]
        missing = [e for e in expected if not any(e in problem for problem in found)]
        unexpected = [p for p in found if not any(e in p for e in expected)]
        clean = [target("CBOR", []), target("Wallet", ["CBOR"])]
        write(root, "Sources/Wallet/A.swift", "import CBOR\n")
        write(root, "Sources/CBOR/CBOR.docc/CBOR.md", "# ``CBOR``\n\n``CBORValue``\n")
        for gone in ("Sources/Unplaced/B.swift", "Sources/SQLite/C.swift", "Sources/BlueZ/D.swift"):
            os.remove(os.path.join(root, gone))
        write(root, DOC, f"{BEGIN}\n{table(clean)}{END}\n")
        clean_problems = check(root, clean, False)
    for e in missing:
        print(f"self-test: not found: {e}")
    for p in unexpected + clean_problems:
        print(f"self-test: unexpected: {p}")
    ok = not (missing or unexpected or clean_problems)
    print(f"check-layers self-test: {'passed' if ok else 'FAILED'}")
    return 0 if ok else 1


def main():
    if "--self-test" in sys.argv:
        return self_test()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    targets = dump_package(root)["targets"]
    if "--table" in sys.argv:
        sys.stdout.write(table(targets))
        return 0
    if "--write" in sys.argv:
        write_doc(root, targets)
        return 0
    problems = check(root, targets, "--verbose" in sys.argv)
    for problem in problems:
        print(problem)
    if problems:
        print(f"check-layers: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"check-layers: {len(targets)} targets, every import declared and within its layer")
    return 0


if __name__ == "__main__":
    sys.exit(main())

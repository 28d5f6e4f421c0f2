import MdocCrypto
import TestSupport

/// Fixtures for the crypto tests. The certificates were made once with Python `cryptography`
/// (fixed validity 2024-01-01..2044-01-01, leaf until 2034-01-01) and pasted here; nothing is
/// generated at test time.
enum Fixtures {
    /// ISO 18013-5 Annex D certificates, from Fixtures/vectors/iso18013-5-annex-d.json.
    static func annexDCertificate(_ key: String) throws -> Certificate {
        try Certificate(der: Vectors.annexD(key))
    }

    /// C=DE, CN=Test Root: P-256, CA, pathlen 1, keyCertSign + cRLSign, serial 1.
    static let testRootPEM = """
        -----BEGIN CERTIFICATE-----
        MIIBVjCB/aADAgECAgEBMAoGCCqGSM49BAMCMCExCzAJBgNVBAYTAkRFMRIwEAYD
        VQQDDAlUZXN0IFJvb3QwHhcNMjQwMTAxMDAwMDAwWhcNNDQwMTAxMDAwMDAwWjAh
        MQswCQYDVQQGEwJERTESMBAGA1UEAwwJVGVzdCBSb290MFkwEwYHKoZIzj0CAQYI
        KoZIzj0DAQcDQgAEf8Dqxj7NGlYwT1eQqHM+LHOSyky5q7elAYacmPmdWT69ie/P
        B54seCwHMFuLElIudK2DXI5lNLBgjPYilCUkfqMmMCQwEgYDVR0TAQH/BAgwBgEB
        /wIBATAOBgNVHQ8BAf8EBAMCAQYwCgYIKoZIzj0EAwIDSAAwRQIhAPMDw56pxIHq
        R/63aGYV3lnpWlxkiuFlDEIyZDVVBkPUAiBFouYkNMDW97autwC1FK2q74xIgJ+x
        c31+ZfxcEVk9PA==
        -----END CERTIFICATE-----
        """

    /// C=DE, CN=Test Intermediate, issued by Test Root: P-384, CA, pathlen 0.
    static let testIntermediatePEM = """
        -----BEGIN CERTIFICATE-----
        MIIBfDCCASKgAwIBAgIBAjAKBggqhkjOPQQDAjAhMQswCQYDVQQGEwJERTESMBAG
        A1UEAwwJVGVzdCBSb290MB4XDTI0MDEwMTAwMDAwMFoXDTQ0MDEwMTAwMDAwMFow
        KTELMAkGA1UEBhMCREUxGjAYBgNVBAMMEVRlc3QgSW50ZXJtZWRpYXRlMHYwEAYH
        KoZIzj0CAQYFK4EEACIDYgAE7xQjsSZVA38KrxmPk8hi6SQlWrQX2iE3DAv7BpXr
        INLGnNSvMGR6WzAMr79OkCJPWATpzWuE2SDKJ53ACVTqhHtOafK0KlSMqC8BGpb0
        +oKYfrVNlCorqMBZrAxJ/s9xoyYwJDASBgNVHRMBAf8ECDAGAQH/AgEAMA4GA1Ud
        DwEB/wQEAwIBBjAKBggqhkjOPQQDAgNIADBFAiB9R2qlcmW0A7DNDV+4dvZ3iCwm
        alzl10DSPpIa4n6QRAIhAPXEYhdvwKxvKDHg1T9ocuYZtFXPteF3SMbVAZmwodQT
        -----END CERTIFICATE-----
        """

    /// C=DE, O=Bärlin Reader GmbH, CN=Test Leaf, issued by Test Intermediate (ECDSA SHA-384):
    /// Ed25519 key, not a CA, digitalSignature, EKU 1.0.18013.5.1.6 and 1.3.6.1.5.5.7.3.2, SAN
    /// DNS reader.example.com, URI https://reader.example.com/mdoc, DNS alt.example.com, serial
    /// 0x0123456789abcdef, valid 2024-01-01..2034-01-01.
    static let testLeafPEM = """
        -----BEGIN CERTIFICATE-----
        MIIB4DCCAWagAwIBAgIIASNFZ4mrze8wCgYIKoZIzj0EAwMwKTELMAkGA1UEBhMC
        REUxGjAYBgNVBAMMEVRlc3QgSW50ZXJtZWRpYXRlMB4XDTI0MDEwMTAwMDAwMFoX
        DTM0MDEwMTAwMDAwMFowPzELMAkGA1UEBhMCREUxHDAaBgNVBAoME0LDpHJsaW4g
        UmVhZGVyIEdtYkgxEjAQBgNVBAMMCVRlc3QgTGVhZjAqMAUGAytlcAMhAKvdglN/
        LFipGVeKdQT+kQsb//Rhfpp/y2PwuudFCHuro4GQMIGNMAwGA1UdEwEB/wQCMAAw
        DgYDVR0PAQH/BAQDAgeAMBwGA1UdJQQVMBMGByiBjF0FAQYGCCsGAQUFBwMCME8G
        A1UdEQRIMEaCEnJlYWRlci5leGFtcGxlLmNvbYYfaHR0cHM6Ly9yZWFkZXIuZXhh
        bXBsZS5jb20vbWRvY4IPYWx0LmV4YW1wbGUuY29tMAoGCCqGSM49BAMDA2gAMGUC
        MQDqMmX6Hyz5+4R/JxVLIb5So1FKFtSY0CtR0cxAVPDwXwbc8x91nArTNhpU11g0
        t18CMDYiX4iM1ZF/FfgI43qP3Ybt9+JBtt7j18J9gjvRIvdu47p49tZgR/FDbxHf
        S5Bdhw==
        -----END CERTIFICATE-----
        """

    /// CN=Rogue, "issued" (Ed25519) by Test Leaf, which is not a CA. No extensions.
    static let testRoguePEM = """
        -----BEGIN CERTIFICATE-----
        MIIBKjCB3aADAgECAgEDMAUGAytlcDA/MQswCQYDVQQGEwJERTEcMBoGA1UECgwT
        QsOkcmxpbiBSZWFkZXIgR21iSDESMBAGA1UEAwwJVGVzdCBMZWFmMB4XDTI0MDEw
        MTAwMDAwMFoXDTQ0MDEwMTAwMDAwMFowEDEOMAwGA1UEAwwFUm9ndWUwWTATBgcq
        hkjOPQIBBggqhkjOPQMBBwNCAASHeWqt/WajdgXGdp+df/hVDmM1s7omNDFfu8Dk
        Huxew4pf5n5tJFt9YQf+5wPFcsa76hbbbzX7yml3X2PSW+KiMAUGAytlcANBAI/K
        l7tI3PF7mvtnN/rvGVOYthFgyljWlsJmdgwpivtbb8I5GIhAAi36yxbORiX9A8gm
        aFZ7lG+Gljz8Nq3vcAM=
        -----END CERTIFICATE-----
        """

    /// A traditional SEC 1 "EC PRIVATE KEY" on P-256, made once with
    /// `openssl ecparam -name prime256v1 -genkey -noout`.
    static let traditionalECPrivateKeyPEM = """
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEIDEmoVeRuJSOJ6RQG/Nl69RDeQvHEg9xQBcI5e3U0tgMoAoGCCqGSM49
        AwEHoUQDQgAE7IysxA2PHpOkKZ8UqlImrpbDSxquvWYJI6UoRRNkowkSRpnW3YtM
        EYbOwhMD97nZzNA5EfStfSyEfiqzYA5ZqQ==
        -----END EC PRIVATE KEY-----
        """
    /// The scalar d of ``traditionalECPrivateKeyPEM``.
    static let traditionalECPrivateKeyD = "3126a15791b8948e27a4501bf365ebd443790bc7120f71401708e5edd4d2d80c"
    /// The public point of ``traditionalECPrivateKeyPEM``.
    static let traditionalECPublicX = "ec8cacc40d8f1e93a4299f14aa5226ae96c34b1aaebd660923a528451364a309"
    static let traditionalECPublicY = "124699d6dd8b4c1186cec21303f7b9d9ccd03911f4ad7d2c847e2ab3600e59a9"
}

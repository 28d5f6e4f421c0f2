/// The project's version, as in the VERSION file at the top of the repository (the one source
/// of truth, also the Debian package's version). `make version-check` (run by `make build`,
/// `make test` and `make deb`) fails when the two differ; `make set-version` writes this
/// file from VERSION.
public let projectVersion = "0.9.0"

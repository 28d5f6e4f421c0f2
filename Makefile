# mdoc-holder: common tasks. `make demo` and `make test` install what they need first.
SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
SWIFT ?= swift
PREFIX ?= /usr/local

.PHONY: deps test-deps build test check-layers architecture-table demo bench bench-ble bench-idle bench-ble-bluezoo link-order fuzz fixtures format lint clean install install-completions-and-manuals uninstall version-check set-version deb

# The project's version: VERSION is the one source of truth. The binaries print it with
# --version from Sources/ProjectVersion/Version.swift, which `version-check` (run by build, test
# and deb) holds equal to it; `make set-version` writes it there after VERSION changed.
VERSION := $(shell cat VERSION)

version-check:
	@v="$$(sed -n 's/^public let projectVersion = "\(.*\)"$$/\1/p' Sources/ProjectVersion/Version.swift)"; \
	[ "$$v" = "$(VERSION)" ] || { echo "Sources/ProjectVersion/Version.swift has '$$v', VERSION has '$(VERSION)': run make set-version" >&2; exit 1; }

set-version:
	sed -i 's/^public let projectVersion = ".*"$$/public let projectVersion = "$(VERSION)"/' Sources/ProjectVersion/Version.swift

deps:
	Tests/Support/install-deps.sh build

test-deps:
	Tests/Support/install-deps.sh test
	Tests/Support/python-venv.sh

build: deps version-check
	$(SWIFT) build

# Every test: unit, vectors, engines. Fails on compiler warnings too.
test: test-deps version-check
	$(MAKE) --no-print-directory check-layers
	SWIFT="$(SWIFT)" Tests/Support/dbus-abi-check.sh
	$(SWIFT) build --build-tests 2>&1 | tee .build-warnings.log
	@! grep -E "^$(CURDIR)/(Sources|Tests)/.*: warning:" .build-warnings.log || (echo "compiler warnings in our code (above): fix them" && false)
	$(SWIFT) test
	Tests/Support/tty-consent-test.sh .build/debug
	Tests/Support/cli-test.sh .build/debug
	Tests/Support/sd-jwt-test.sh .build/debug
	Tests/Support/vci-test.sh .build/debug
	Tests/Support/status-test.sh .build/debug
	Tests/Support/fuzz-replay.sh .build/debug
	Tests/Support/ble-bluezoo-test.sh .build/debug
	Tests/Support/hostile-text-test.sh .build/debug
	Tests/Support/conformance-test.sh .build/debug
	Tests/Support/secure-area-test.sh .build/debug
	Tests/Support/packaging-test.sh .build/debug
	Tests/Support/deb-test.sh
	Tests/Support/service-test.sh .build/debug
	Tests/Support/kiosk-soak.sh .build/debug
	Tests/Support/serve-soak.sh .build/debug
	Tests/Support/ble-vm-test.sh .build/debug
	Tests/Support/systemd-vm-test.sh

# Every target declares what it imports and imports nothing from a layer above its own; the
# layer table in docs/architecture.md is the one Tests/Support/check-layers.py generates.
check-layers:
	Tests/Support/check-layers.py --self-test
	SWIFT="$(SWIFT)" Tests/Support/check-layers.py

# Rewrites docs/architecture.md's layer table from Tests/Support/check-layers.py and Package.swift.
architecture-table:
	SWIFT="$(SWIFT)" Tests/Support/check-layers.py --write

demo: test-deps
	$(SWIFT) build
	$(SWIFT) run mdoc-demo Fixtures
	Tests/Support/ble-demo.sh .build/debug

# Every release build here is the one the Debian package ships (packaging/release-build.sh says
# which flags and why), so the benchmarks measure what a kiosk runs and share one .build/release.
RELEASE_BUILD = SWIFT="$(SWIFT)" packaging/release-build.sh

bench: deps
	$(RELEASE_BUILD) --product mdoc-benchmarks
	.build/release/mdoc-benchmarks

# BLE through a real bluetoothd in the BlueZ VM (one boot): fd and PropertiesChanged paths beside
# the Python reference server, wire overhead, the holder's own times over GATT and L2CAP, process
# start to QR; then, bluetoothd stopped, the link's limits (raw ATT notifications, a raw L2CAP CoC
# socket pair) and the holder's times as ratios to them (and to the raw transfer plus the holder's
# CPU in the same boot). Release builds, what a kiosk runs; BENCH_BUILD=debug for debug builds.
BENCH_BUILD ?= release
BENCH_BUILD_COMMAND = $(if $(filter release,$(BENCH_BUILD)),$(RELEASE_BUILD),$(SWIFT) build -c $(BENCH_BUILD))
bench-ble: test-deps
	$(BENCH_BUILD_COMMAND) --product mdoc-holder
	$(BENCH_BUILD_COMMAND) --product mdoc-issuer
	$(BENCH_BUILD_COMMAND) --product mdoc-ble-benchmarks
	Tests/Support/ble-vm-bench.sh .build/$(BENCH_BUILD)

# The idle service's RSS and what it is made of (plain and armed kiosk), and process start to the
# QR code on a terminal, release builds on a private bus with BlueZoo.
bench-idle: test-deps
	$(RELEASE_BUILD) --product mdoc-holder
	Tests/Support/idle-bench.sh .build/release

# Regenerates packaging/link-order.txt (the functions start-up runs, placed together by the
# release link) from the current release build; needs valgrind (apt-get install valgrind).
link-order: test-deps
	$(RELEASE_BUILD) --product mdoc-holder
	Tests/Support/link-order.sh .build/release

# The holder's latencies on BlueZoo (no radio, no kernel: D-Bus and our processes), release builds.
bench-ble-bluezoo: test-deps
	$(RELEASE_BUILD) --product mdoc-holder
	$(RELEASE_BUILD) --product mdoc-issuer
	$(RELEASE_BUILD) --product mdoc-ble-benchmarks
	Tests/Support/ble-bluezoo-bench.sh .build/release

# Fuzzes every decoder of outside bytes, FUZZ_SECONDS (default 60) per target; FUZZ_TARGETS
# names a few (docs/fuzzing.md). The test command replays the committed corpus.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
fuzz: deps
	Tests/Support/fuzz.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# Remakes the committed test PKI, sample mDL and device key under Fixtures/ (test-only keys).
fixtures: deps
	Tests/Support/make-fixtures.sh

format:
	$(SWIFT) format --in-place --recursive Sources Tests Package.swift

lint:
	$(SWIFT) format lint --recursive Sources Tests

clean:
	rm -rf .build .build-*

# ---- install -------------------------------------------------------------------------
# `make install [DESTDIR=/tmp/stage] [PREFIX=/usr]`: the three commands ($(COMMANDS)) with
# their man pages and shell completions, the systemd unit and its drop-in snippets, the D-Bus
# policy, activation file and interface XML, the udev rule, the sysusers.d entry, an
# environment file and the docs (docs/operator-guide.md has the layout). BIN_DIR is where the binaries are taken from: .build/release by default, built
# with `swift build -c release --static-swift-stdlib` (the Swift runtime linked in, as in the
# Debian package) when missing; `make install BIN_DIR=.build/debug` installs
# the debug build instead (the packaging test does, to skip a release build).
# Names: SERVICE_USER runs the service and alone (with root) may own org.mdocholder;
# members of HOLDER_GROUP (and root) may call it and register the consent agent.
BIN_DIR ?= .build/release
SERVICE_USER ?= mdoc-holder
HOLDER_GROUP ?= mdoc-holder
bindir ?= $(PREFIX)/bin
datadir ?= $(PREFIX)/share
docdir ?= $(datadir)/doc/mdoc-holder
mandir ?= $(datadir)/man
# Where bash-completion, zsh and fish look for completions of installed commands.
bashcompletiondir ?= $(datadir)/bash-completion/completions
zshcompletiondir ?= $(datadir)/zsh/site-functions
fishcompletiondir ?= $(datadir)/fish/vendor_completions.d
sysconfdir ?= /etc
# systemd and udev read /usr/local/lib/... as well as /usr/lib/... (systemd-analyze
# unit-paths; udev's rules directories), so these follow PREFIX.
systemdunitdir ?= $(PREFIX)/lib/systemd/system
sysusersdir ?= $(PREFIX)/lib/sysusers.d
udevrulesdir ?= $(PREFIX)/lib/udev/rules.d
# The system bus reads policies from /usr/share/dbus-1/system.d and /etc/dbus-1/system.d
# only (not /usr/local): this one does not follow PREFIX. Activation files are read from
# /usr/local/share as well as /usr/share, so those follow PREFIX.
dbuspolicydir ?= /usr/share/dbus-1/system.d
dbussystemservicedir ?= $(datadir)/dbus-1/system-services
dbusinterfacesdir ?= $(datadir)/dbus-1/interfaces
# Drop-in snippets (online, kiosk, kiosk-tty, tpm): shipped here, enabled by linking them into
# /etc/systemd/system/mdoc-holder.service.d/ (a drop-in in the unit's own directory would
# always apply).
snippetdir ?= $(datadir)/mdoc-holder/systemd

SUBST = sed -e 's|@bindir@|$(bindir)|g' -e 's|@datadir@|$(datadir)|g' -e 's|@docdir@|$(docdir)|g' \
	-e 's|@sysconfdir@|$(sysconfdir)|g' -e 's|@sysusersdir@|$(sysusersdir)|g' \
	-e 's|@SERVICE_USER@|$(SERVICE_USER)|g' -e 's|@HOLDER_GROUP@|$(HOLDER_GROUP)|g'
# $(call subst_install,SOURCE,PATH,MODE): SOURCE with its placeholders substituted, to
# $(DESTDIR)PATH; fails if a placeholder is left.
subst_install = install -d -m 0755 "$(DESTDIR)$(dir $(2))" && $(SUBST) "$(1)" >"$(DESTDIR)$(2).tmp" \
	&& { ! grep -n '@[A-Za-z_]*@' "$(DESTDIR)$(2).tmp" || { echo "unsubstituted placeholder in $(1)" >&2; false; }; } \
	&& chmod $(3) "$(DESTDIR)$(2).tmp" && mv -f "$(DESTDIR)$(2).tmp" "$(DESTDIR)$(2)"

# The installed commands: the holder, the reader and the test issuer (what makes a test
# credential for a reader under test, or a reader's trust list).
COMMANDS = mdoc-holder mdoc-reader mdoc-issuer

# The Swift runtime linked in, no $ORIGIN search path, -z now: as packaging/deb/build-deb.sh.
$(addprefix .build/release/,$(COMMANDS)): | deps
	$(RELEASE_BUILD) --product $(notdir $@)

# The argument parser's manual generator (the tool behind its GenerateManual plugin, built
# alone: the plugin would build every product in release first).
GENERATE_MANUAL = .build/debug/generate-manual
$(GENERATE_MANUAL): | deps
	$(SWIFT) build --product generate-manual

# Shell completions (bash, zsh, fish) and a man page for each installed command, generated
# from the binaries themselves (swift-argument-parser). Bash completions are sourced, not run:
# no #! line. A blank line between paragraphs of a man page becomes .Pp (groff warns on it).
install-completions-and-manuals: $(addprefix $(BIN_DIR)/,$(COMMANDS)) $(GENERATE_MANUAL)
	install -d -m 0755 "$(DESTDIR)$(bashcompletiondir)" "$(DESTDIR)$(zshcompletiondir)" \
	  "$(DESTDIR)$(fishcompletiondir)" "$(DESTDIR)$(mandir)/man1"
	for c in $(COMMANDS); do \
	  "$(BIN_DIR)/$$c" --generate-completion-script bash | sed '1{/^#!/d}' >"$(DESTDIR)$(bashcompletiondir)/$$c" && \
	  "$(BIN_DIR)/$$c" --generate-completion-script zsh >"$(DESTDIR)$(zshcompletiondir)/_$$c" && \
	  "$(BIN_DIR)/$$c" --generate-completion-script fish >"$(DESTDIR)$(fishcompletiondir)/$$c.fish" && \
	  chmod 0644 "$(DESTDIR)$(bashcompletiondir)/$$c" "$(DESTDIR)$(zshcompletiondir)/_$$c" \
	    "$(DESTDIR)$(fishcompletiondir)/$$c.fish" && \
	  "$(GENERATE_MANUAL)" "$(BIN_DIR)/$$c" --output-directory "$(DESTDIR)$(mandir)/man1" && \
	  sed -i 's/^$$/.Pp/' "$(DESTDIR)$(mandir)/man1/$$c.1" && \
	  chmod 0644 "$(DESTDIR)$(mandir)/man1/$$c.1" || exit 1; \
	done

# The environment file in $(sysconfdir)/default is configuration: installed once, never
# overwritten.
install: $(addprefix $(BIN_DIR)/,$(COMMANDS)) install-completions-and-manuals
	@case "$(SERVICE_USER)$(HOLDER_GROUP)" in *[!A-Za-z0-9_.-]*) echo "SERVICE_USER and HOLDER_GROUP: letters, digits, _ . - only" >&2; exit 1;; esac
	install -d -m 0755 "$(DESTDIR)$(bindir)"
	install -m 0755 $(addprefix "$(BIN_DIR)/,$(addsuffix ",$(COMMANDS))) "$(DESTDIR)$(bindir)/"
	$(call subst_install,dbus/mdoc-holder.service,$(systemdunitdir)/mdoc-holder.service,0644)
	$(call subst_install,dbus/mdoc-holder.service.d/online.conf,$(snippetdir)/online.conf,0644)
	$(call subst_install,dbus/mdoc-holder.service.d/kiosk.conf,$(snippetdir)/kiosk.conf,0644)
	$(call subst_install,dbus/mdoc-holder.service.d/kiosk-tty.conf,$(snippetdir)/kiosk-tty.conf,0644)
	$(call subst_install,dbus/mdoc-holder.service.d/tpm.conf,$(snippetdir)/tpm.conf,0644)
	$(call subst_install,dbus/mdoc-holder.sysusers,$(sysusersdir)/mdoc-holder.conf,0644)
	$(call subst_install,dbus/org.mdocholder.conf,$(dbuspolicydir)/org.mdocholder.conf,0644)
	$(call subst_install,dbus/org.mdocholder.service,$(dbussystemservicedir)/org.mdocholder.service,0644)
	install -d -m 0755 "$(DESTDIR)$(dbusinterfacesdir)"
	install -m 0644 dbus/org.mdocholder.Holder1.xml dbus/org.mdocholder.ConsentAgent1.xml "$(DESTDIR)$(dbusinterfacesdir)/"
	install -d -m 0755 "$(DESTDIR)$(udevrulesdir)"
	install -m 0644 udev/90-mdoc-holder.rules "$(DESTDIR)$(udevrulesdir)/"
	test -e "$(DESTDIR)$(sysconfdir)/default/mdoc-holder" \
	  || { $(call subst_install,dbus/mdoc-holder.default,$(sysconfdir)/default/mdoc-holder,0644); }
	install -d -m 0755 "$(DESTDIR)$(docdir)/examples"
	install -m 0644 README.md docs/operator-guide.md docs/kiosk-policy.md $(wildcard docs/bluez-configuration.md) "$(DESTDIR)$(docdir)/"
	install -m 0644 docs/kiosk-policy.toml "$(DESTDIR)$(docdir)/examples/kiosk-policy.toml"
	@if [ -z "$(DESTDIR)" ]; then \
	  echo "installed. To activate now (a package's postinst would do this):"; \
	  echo "  systemd-sysusers $(sysusersdir)/mdoc-holder.conf && systemctl daemon-reload"; \
	  echo "  busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig"; \
	  echo "  udevadm control --reload"; \
	  echo "see $(docdir)/operator-guide.md"; fi

# ---- Debian package ------------------------------------------------------------------------
# `make deb`: $(DEB_DIR)/mdoc-holder_$(VERSION)_$(DEB_ARCH).deb from release builds with the
# Swift runtime linked statically, staged with `make install PREFIX=/usr` (packaging/deb/:
# build-deb.sh, the maintainer scripts, copyright, changelog). Then
# `sudo apt-get install ./$(DEB_DIR)/mdoc-holder_$(VERSION)_$(DEB_ARCH).deb`.
DEB_DIR ?= .build/deb
DEB_ARCH := $(shell dpkg --print-architecture 2>/dev/null)
deb: deps version-check
	SWIFT="$(SWIFT)" packaging/deb/build-deb.sh $(DEB_DIR)

# Removes what install put in place, except the environment file in $(sysconfdir)/default
# (configuration) and the service's state (/var/lib/mdoc-holder: the credential store).
uninstall:
	rm -f $(addprefix "$(DESTDIR)$(bindir)/,$(addsuffix ",$(COMMANDS))) \
	  "$(DESTDIR)$(systemdunitdir)/mdoc-holder.service" \
	  "$(DESTDIR)$(snippetdir)/online.conf" "$(DESTDIR)$(snippetdir)/kiosk.conf" "$(DESTDIR)$(snippetdir)/kiosk-tty.conf" \
	  "$(DESTDIR)$(snippetdir)/tpm.conf" \
	  "$(DESTDIR)$(sysusersdir)/mdoc-holder.conf" \
	  "$(DESTDIR)$(dbuspolicydir)/org.mdocholder.conf" \
	  "$(DESTDIR)$(dbussystemservicedir)/org.mdocholder.service" \
	  "$(DESTDIR)$(dbusinterfacesdir)/org.mdocholder.Holder1.xml" "$(DESTDIR)$(dbusinterfacesdir)/org.mdocholder.ConsentAgent1.xml" \
	  "$(DESTDIR)$(udevrulesdir)/90-mdoc-holder.rules"
	for c in $(COMMANDS); do \
	  rm -f "$(DESTDIR)$(bashcompletiondir)/$$c" "$(DESTDIR)$(zshcompletiondir)/_$$c" \
	    "$(DESTDIR)$(fishcompletiondir)/$$c.fish" "$(DESTDIR)$(mandir)/man1/$$c.1"; \
	done
	rm -rf "$(DESTDIR)$(docdir)"
	-rmdir "$(DESTDIR)$(snippetdir)" "$(DESTDIR)$(datadir)/mdoc-holder" 2>/dev/null

# mdoc-holder: common tasks. `make demo` and `make test` install what they need first.
SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
SWIFT ?= swift
PREFIX ?= /usr/local

.PHONY: deps test-deps build test demo bench bench-ble fuzz fixtures format lint clean

deps:
	Tests/Support/install-deps.sh build

test-deps:
	Tests/Support/install-deps.sh test
	Tests/Support/python-venv.sh

build: deps
	$(SWIFT) build

# Every test: unit, vectors, engines. Fails on compiler warnings too.
test: test-deps
	$(SWIFT) build --build-tests 2>&1 | tee .build-warnings.log
	@! grep -E "^$(CURDIR)/(Sources|Tests)/.*: warning:" .build-warnings.log || (echo "compiler warnings in our code (above): fix them" && false)
	$(SWIFT) test
	Tests/Support/tty-consent-test.sh .build/debug
	Tests/Support/cli-test.sh .build/debug
	Tests/Support/ble-bluezoo-test.sh .build/debug
	Tests/Support/ble-vm-test.sh .build/debug

demo: test-deps
	$(SWIFT) build
	$(SWIFT) run mdoc-demo Fixtures
	Tests/Support/ble-demo.sh .build/debug

bench: deps
	$(SWIFT) build -c release --product mdoc-benchmarks
	.build/release/mdoc-benchmarks

# BLE through a real bluetoothd in the BlueZ VM (one boot): fd and PropertiesChanged paths beside
# the Python reference server, wire overhead, process start to QR. Debug builds, as the VM tier.
bench-ble: test-deps
	$(SWIFT) build --product mdoc-holder
	$(SWIFT) build --product mdoc-issuer
	$(SWIFT) build --product mdoc-ble-benchmarks
	Tests/Support/ble-vm-bench.sh .build/debug

# Runs the CBOR / SessionEstablishment / DeviceRequest fuzzer for FUZZ_SECONDS (default 60).
FUZZ_SECONDS ?= 60
fuzz: deps
	Tests/Support/fuzz.sh $(FUZZ_SECONDS)

# Remakes the committed test PKI, sample mDL and device key under Fixtures/ (test-only keys).
fixtures: deps
	Tests/Support/make-fixtures.sh

format:
	$(SWIFT) format --in-place --recursive Sources Tests Package.swift

lint:
	$(SWIFT) format lint --recursive Sources Tests

clean:
	rm -rf .build .build-*

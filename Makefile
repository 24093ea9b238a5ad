# ChartCast: `make run` starts the demo dashboard, `make test` runs every test.
SWIFT ?= swift
PYTHON ?= /usr/bin/python3
ARGS ?=
# Seconds each fuzz target runs: `make fuzz` (FUZZ_SECONDS), and the fuzz stage of `make test`.
FUZZ_SECONDS ?= 300
FUZZ_TEST_SECONDS ?= 20

N ?= 2
SEPARATE_PORTS ?= 0

.PHONY: run run-cluster build release test unit-test browser-test fuzz screenshot bench microbench soak deps deps-test clean

deps:
	@scripts/install-deps.sh run

deps-test:
	@scripts/install-deps.sh test

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product chartcast

## Installs what is missing, builds in release and serves http://127.0.0.1:8080 (ARGS="--port 9000" etc.).
run: release
	.build/release/chartcast $(ARGS)

## One dashboard on N instances joined through one Redis (loopback, no persistence), all on
## port 8080 (--reuse-port; SEPARATE_PORTS=1: ports 8080 … 8080+N-1) (scripts/run-cluster.sh;
## ARGS passes flags to every instance). Ctrl-C stops all.
run-cluster: release
	@scripts/install-deps.sh cluster
	N=$(N) SEPARATE_PORTS=$(SEPARATE_PORTS) scripts/run-cluster.sh $(ARGS)

## Installs what the tests need, runs the Swift suites, the real-Chromium page tests, then every
## fuzz target for FUZZ_TEST_SECONDS (sanitizer build in .build/fuzz; fails on a crash or leak).
test: deps-test
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-swift-testing
	$(SWIFT) build --product chartcast
	CHARTCAST_BIN=$(CURDIR)/.build/debug/chartcast $(PYTHON) Tests/browser/test_dashboard.py
	SWIFT=$(SWIFT) scripts/fuzz.sh $(FUZZ_TEST_SECONDS)

unit-test: deps-test
	$(SWIFT) test

browser-test: deps-test
	$(SWIFT) build --product chartcast
	CHARTCAST_BIN=$(CURDIR)/.build/debug/chartcast $(PYTHON) Tests/browser/test_dashboard.py

## Builds the libFuzzer targets (-sanitize=fuzzer,address, into .build/fuzz) and runs each for
## FUZZ_SECONDS (default 300) from a temporary copy of Fuzz/corpus; fails on a crash, leak or hang.
fuzz: deps
	SWIFT=$(SWIFT) scripts/fuzz.sh $(FUZZ_SECONDS)

## Runs the page tests and keeps their screenshot as docs/screenshot.png (the README's).
screenshot: deps-test
	$(SWIFT) build --product chartcast
	CHARTCAST_BIN=$(CURDIR)/.build/debug/chartcast CHARTCAST_SCREENSHOT=$(CURDIR)/docs/screenshot.png \
		$(PYTHON) Tests/browser/test_dashboard.py

## Side-by-side load benchmark against libwebsockets-test-server (minutes; not part of `make test`).
bench:
	@scripts/install-deps.sh bench
	bash bench/run.sh

## Soak: 1,000 viewers, drivers, stalls, vanishings and freezes for SOAK_SECONDS (default 1800) against a
## release server; RSS within ±5 % after the warm-up, no error, everyone converged (scripts/soak.sh).
soak: deps
	SWIFT=$(SWIFT) scripts/soak.sh

## Engine micro-benchmark: hover, range update and append cost at 10^3…10^7 points.
microbench: deps
	$(SWIFT) build -c release --product chartcast-bench
	.build/release/chartcast-bench

clean:
	rm -rf .build

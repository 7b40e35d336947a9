# Convenience targets; each first makes sure the locked dependencies (Bun included) are installed.
BUN := node_modules/.bin/bun
SETUP := node scripts/setup.mjs

.PHONY: setup serve test build typecheck bench bench-crawl bench-options bench-50k bench-deps bench-api-stores bench-cluster compare-real clean

setup:
	@$(SETUP)

serve: setup
	$(BUN) src/main.ts serve

test: setup
	$(BUN) test

build: setup
	$(BUN) scripts/build.ts dist/linkpatrol

typecheck: setup
	node_modules/.bin/tsc --noEmit -p .

# Bench-only dependencies (linkinator, autocannon) live in bench/package.json, never in the product's;
# reinstalled from bench/package-lock.json when missing or older than the lock file.
BENCH_DEPS := bench/node_modules/.package-lock.json

$(BENCH_DEPS): bench/package.json bench/package-lock.json
	npm ci --prefix bench --no-audit --no-fund
	@touch $@

bench-deps: $(BENCH_DEPS)

# Start-up/memory/API numbers, then the 10k-page comparison on the realistic synthetic site with every internal
# link kind: the service via the API, linkpatrol check, linkinator and (when installed) wget2 on the same site,
# and the API's latency under a rotating mix of requests (wrk, else autocannon) while a second crawl runs; then the
# real doc sites of issue 42's targets (python3-doc, postgresql-doc-15 and rust-doc's 21,635 pages, served by nginx;
# installed with apt when missing) checked with images, scripts and stylesheets beside wget2 in the same run; last,
# the nightly re-audit (a 3,000-page site, 2 % changed, with and without validators) beside wget2's full spider.
bench: build bench-deps
	$(BUN) bench/run.ts
	$(BUN) bench/crawl.ts --binary --pages 10000 --api-load --no-api-endpoints $(ARGS)
	$(BUN) bench/option-cost.ts --pages 10000 --rounds 3
	$(BUN) bench/real-sites/run.ts --sites python3-doc,postgresql-doc-15,rust-doc --tools linkpatrol,wget2 --binary $(CURDIR)/dist/linkpatrol --check-flags="--images --scripts --stylesheets"
	$(BUN) bench/reaudit.ts --pages 3000 --rounds 3 --binary $(CURDIR)/dist/linkpatrol

# What each crawl option costs (check on the realistic 10k site, paired rounds; medians of wall and peak RSS).
# Against an older build too: make bench-options ARGS="--baseline-binary /tmp/old-linkpatrol".
bench-options: build
	$(BUN) bench/option-cost.ts --pages 10000 --rounds 3 $(ARGS)

# The crawl comparison alone; extra flags via ARGS, e.g. make bench-crawl ARGS="--site classic --options all".
bench-crawl: build bench-deps
	$(BUN) bench/crawl.ts --binary --pages 10000 $(ARGS)

# 50k pages (linkinator skipped: it would take ~20 min), with the API under load (wrk, else autocannon) during a
# crawl, and the time growth from a 10k site measured in the same run (--growth-rounds, 3 paired rounds).
bench-50k: build bench-deps
	$(BUN) bench/crawl.ts --binary --pages 50000 --no-linkinator --api-load --api-load-seconds 5 $(ARGS)

# The API mix during a crawl on SQLite and on a fresh PostgreSQL database, alternating rounds of one binary (issue 43:
# PostgreSQL's p99 within 1.5x of SQLite's). PostgreSQL at LINKPATROL_BENCH_POSTGRES (default
# postgres://postgres@127.0.0.1:5432/postgres); extra flags via ARGS, e.g. ARGS="--rounds 5", or
# ARGS="--analyze -- --accept-encoding gzip" for clients that accept gzip, as most do (bench/README.md, eighth session),
# or ARGS="--analyze -- --api-mix-rate 2000" for latency at one offered load on both stores (ninth session).
bench-api-stores: build bench-deps
	$(BUN) bench/api-mix-stores.ts --binary-path $(CURDIR)/dist/linkpatrol $(ARGS)

# One node against three on one PostgreSQL database, crawling many slow loopback sites (issue 43: three nodes finish
# ~3x the crawls of one); extra flags via ARGS, e.g. ARGS="--rounds 2 --sites 18".
bench-cluster: build
	$(BUN) bench/cluster-throughput.ts --binary-path $(CURDIR)/dist/linkpatrol $(ARGS)

# linkpatrol check, wget2 and LinkChecker on real Debian doc trees (Sphinx, DocBook, Doxygen) served by nginx on
# 127.0.0.1; installs what is missing with apt (root or password-less sudo) and builds linkpatrol under /tmp.
# Extra flags via ARGS, e.g. make compare-real ARGS="--sites postgresql-doc-15". See bench/real-sites/README.md.
compare-real: setup
	$(BUN) bench/real-sites/run.ts $(ARGS)

clean:
	rm -rf dist

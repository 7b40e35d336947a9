# Convenience targets; each first makes sure the locked dependencies (Bun included) are installed.
BUN := node_modules/.bin/bun
SETUP := node scripts/setup.mjs

.PHONY: setup serve test build typecheck bench bench-crawl clean

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

bench: build
	$(BUN) bench/run.ts
	$(BUN) bench/crawl.ts --binary --pages 10000

# The crawl benchmark alone; extra flags via ARGS, e.g. make bench-crawl ARGS="--options all".
bench-crawl: build
	$(BUN) bench/crawl.ts --binary --pages 10000 $(ARGS)

clean:
	rm -rf dist

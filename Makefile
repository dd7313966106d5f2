# termbridge: `make demo` shows the main job, `make test` runs every check on
# Deno and on Bun. Both install what they need first (npm ci brings Deno, Bun
# and the libraries).

BIN     := node_modules/.bin
DENO    := $(BIN)/deno
BUN     := $(BIN)/bun
PERMS   := --allow-all
SOURCES := main.ts $(shell find lib -name '*.ts' 2>/dev/null)

.PHONY: all install demo test test-deno test-bun check fmt build build-deno bench clean

all: build

install: node_modules/.installed

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

## demo: termbridge's main job: the built binary runs a scripted ACP agent (no
## model, no account) whose commands run in real terminals, in a fresh temp dir.
demo: dist/termbridge
	@dir=$$(mktemp -d) && ./dist/termbridge acp --yes --cwd "$$dir" \
	  --prompt "Show me what termbridge does" -- $(BUN) examples/demo_agent.ts; \
	  status=$$?; rm -rf "$$dir"; exit $$status

## test: type-check, lint, format check, build the binary (the end-to-end tests
## drive it), then the whole suite on Deno and on Bun.
test: check dist/termbridge test-deno test-bun

test-deno: install
	$(DENO) test $(PERMS) tests/

test-bun: install
	$(BUN) test tests/

check: install
	$(DENO) check main.ts $(shell find lib tests bench -name "*.ts" 2>/dev/null)
	$(DENO) lint
	$(DENO) fmt --check

fmt: install
	$(DENO) fmt

## build: the standalone executable dist/termbridge (bun build --compile works offline).
build: dist/termbridge

dist/termbridge: install $(SOURCES) package.json
	$(BUN) build --compile --minify --bytecode --format=esm --sourcemap main.ts --outfile dist/termbridge

## build-deno: a Deno-compiled executable; needs network access (deno compile downloads its runtime).
build-deno: install
	$(DENO) compile $(PERMS) --output dist/termbridge-deno main.ts

bench: install
	$(BUN) bench/terminal.ts
	$(DENO) run $(PERMS) bench/terminal.ts

clean:
	rm -rf dist

# termbridge: `make install` puts the binary on PATH, `make demo` shows the main
# job, `make test` runs every check on Deno and on Bun. Each brings what it
# needs first: `deps` (npm ci: Deno, Bun and the libraries) and, for the tests,
# `tools` (the programs the tests drive).

BIN     := node_modules/.bin
DENO    := $(BIN)/deno
BUN     := $(BIN)/bun
PERMS   := --allow-all
# Everything the binary is built from: every file under lib/ (TypeScript and any
# asset beside it, .wasm, .sh...), the entry point and the package manifests.
SOURCES := main.ts $(shell find lib -type f 2>/dev/null) package.json package-lock.json bunfig.toml deno.json

# Where `make install` puts things: $(PREFIX)/bin/termbridge, completions and the man page.
PREFIX  ?= $(HOME)/.local
DESTDIR ?=
BINDIR  := $(DESTDIR)$(PREFIX)/bin
SHARE   := $(DESTDIR)$(PREFIX)/share

# The programs the tests drive (command -> Debian package); `make tools` installs the missing ones.
TOOLS   := vim:vim less:less tmux:tmux python3:python3 setsid:util-linux zsh:zsh bwrap:bubblewrap fish:fish chromium:chromium firefox-esr:firefox-esr asciinema:asciinema curl:curl

.PHONY: all deps tools install uninstall docs demo test test-deno test-bun check fmt build build-deno bench clean

all: build

## deps: npm ci, only when package.json or package-lock.json changed (a stamp file).
deps: node_modules/.installed

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

## tools: apt-get installs whichever program the tests drive is missing (vim, less, chromium, firefox-esr,
## tmux, python3, setsid, zsh, bwrap, fish); says what it cannot install and goes on.
tools:
	@missing=""; for pair in $(TOOLS); do \
	  command -v "$${pair%%:*}" >/dev/null 2>&1 || missing="$$missing $${pair#*:}"; \
	done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	sudo=""; [ "$$(id -u)" = 0 ] || sudo="sudo"; \
	if command -v apt-get >/dev/null 2>&1 && { [ -z "$$sudo" ] || command -v sudo >/dev/null 2>&1; }; then \
	  echo "tools: installing$$missing"; \
	  $$sudo apt-get update -qq && $$sudo apt-get install -y -qq $$missing >/dev/null; \
	else \
	  echo "tools: missing$$missing (no apt-get or no root): the tests that need them are skipped"; \
	fi

## install: the binary as $(PREFIX)/bin/termbridge (PREFIX defaults to ~/.local), with
## bash, zsh and fish completions and a man page generated from the help texts.
install: dist/termbridge dist/share/.generated
	install -d "$(BINDIR)" "$(SHARE)/bash-completion/completions" "$(SHARE)/zsh/site-functions" \
	  "$(SHARE)/fish/vendor_completions.d" "$(SHARE)/man/man1"
	install -m 755 dist/termbridge "$(BINDIR)/termbridge"
	install -m 644 dist/share/termbridge.bash "$(SHARE)/bash-completion/completions/termbridge"
	install -m 644 dist/share/_termbridge "$(SHARE)/zsh/site-functions/_termbridge"
	install -m 644 dist/share/termbridge.fish "$(SHARE)/fish/vendor_completions.d/termbridge.fish"
	install -m 644 dist/share/termbridge.1 "$(SHARE)/man/man1/termbridge.1"
	@case ":$$PATH:" in *":$(PREFIX)/bin:"*) ;; \
	  *) echo "install: $(PREFIX)/bin is not on your PATH; add it, e.g. export PATH=\"$(PREFIX)/bin:\$$PATH\"";; esac

uninstall:
	rm -f "$(BINDIR)/termbridge" "$(SHARE)/bash-completion/completions/termbridge" \
	  "$(SHARE)/zsh/site-functions/_termbridge" "$(SHARE)/fish/vendor_completions.d/termbridge.fish" \
	  "$(SHARE)/man/man1/termbridge.1"

## docs: completions and man page in dist/share, generated from the binary's own help texts.
docs: dist/share/.generated

dist/share/.generated: dist/termbridge tools/docs.ts lib/cli/docs.ts lib/cli/help_spec.ts
	$(BUN) tools/docs.ts dist/termbridge dist/share
	@touch $@

## demo: termbridge's main job: the built binary runs a scripted ACP agent (no model, no
## account) whose commands run in real terminals, in a fresh temp dir.
demo: dist/termbridge
	@dir=$$(mktemp -d) && ./dist/termbridge acp --yes --cwd "$$dir" \
	  --prompt "Show me what termbridge does" -- $(BUN) examples/demo_agent.ts; \
	  status=$$?; rm -rf "$$dir"; exit $$status

## test: the programs the tests drive, type-check, lint, format check, build the binary
## (the end-to-end tests drive it), then the whole suite on Deno and on Bun.
test: tools check dist/termbridge test-deno test-bun

test-deno: deps
	$(DENO) test $(PERMS) tests/

test-bun: deps
	$(BUN) test tests/

check: deps
	$(DENO) check main.ts $(shell find lib tests bench tools -name "*.ts" 2>/dev/null)
	$(DENO) lint
	$(DENO) fmt --check

fmt: deps
	$(DENO) fmt

## build: the standalone executable dist/termbridge (bun build --compile works offline; code
## splitting keeps the modes a command does not run out of its start-up),
## rebuilt only when one of its sources changed.
build: dist/termbridge

# The shell parser's WebAssembly files are embedded under their own names (lib/policy/parser.ts).
WASM    := node_modules/web-tree-sitter/tree-sitter.wasm node_modules/tree-sitter-bash/tree-sitter-bash.wasm

# The browser dashboard's files (lib/web/assets.ts), embedded as NAME.asset: copies with a suffix
# that bun embeds as files instead of bundling them as code.
WEB     := lib/web/page/index.html lib/web/page/app.js lib/web/page/player.js lib/web/page/app.css \
           node_modules/@xterm/xterm/lib/xterm.js node_modules/@xterm/xterm/css/xterm.css
WEB_ASSETS := $(addprefix dist/web/,$(addsuffix .asset,$(notdir $(WEB))))

dist/web/%.asset: $(WEB)
	@mkdir -p dist/web
	cp $(filter %/$*,$(WEB)) $@

# Each build names its chunks' source maps anew: the last build's are removed first.
dist/termbridge: node_modules/.installed $(SOURCES) $(WEB_ASSETS)
	rm -f dist/*.js.map dist/termbridge.map
	$(BUN) build --compile --splitting --minify --bytecode --format=esm --sourcemap --asset-naming='[name].[ext]' \
	  --loader .asset:file main.ts $(WASM) $(WEB_ASSETS) --outfile dist/termbridge

## build-deno: a Deno-compiled executable; needs network access (deno compile downloads its runtime).
build-deno: deps
	$(DENO) compile $(PERMS) $(addprefix --include ,$(WASM)) --output dist/termbridge-deno main.ts

bench: deps
	$(BUN) bench/terminal.ts
	$(DENO) run $(PERMS) bench/terminal.ts

clean:
	rm -rf dist

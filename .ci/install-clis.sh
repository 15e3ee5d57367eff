#!/usr/bin/env bash
# Installs the agent CLIs that the integration tests drive against the scripted
# model server (package modeltest): Claude Code and Codex, pinned, from the npm
# registry, into a cache directory outside the work tree.
#
#   LUX_CLI_CACHE   cache directory (default: $HOME/.cache/lux-clis)
#
# Prints the bin directory (containing `claude` and `codex`) on the last line of
# stdout. Does nothing when both CLIs are already installed at the pinned
# versions. Exits non-zero with a message on stderr when anything fails.
set -euo pipefail

CLAUDE_PKG="@anthropic-ai/claude-code"
CLAUDE_VERSION="2.1.328"
CODEX_PKG="@openai/codex"
CODEX_VERSION="0.169.0"

cache="${LUX_CLI_CACHE:-${HOME:?HOME is not set}/.cache/lux-clis}"
bin="$cache/node_modules/.bin"

die() {
	echo "install-clis: $*" >&2
	exit 1
}

installed_version() { # package → version installed in the cache, or nothing
	local manifest="$cache/node_modules/$1/package.json"
	[[ -f "$manifest" ]] || return 0
	node -e 'process.stdout.write(require(process.argv[1]).version || "")' "$manifest" 2>/dev/null || true
}

up_to_date() {
	[[ "$(installed_version "$CLAUDE_PKG")" == "$CLAUDE_VERSION" ]] &&
		[[ "$(installed_version "$CODEX_PKG")" == "$CODEX_VERSION" ]] &&
		[[ -x "$bin/claude" ]] && [[ -x "$bin/codex" ]] &&
		"$bin/claude" --version >/dev/null 2>&1 &&
		"$bin/codex" --version >/dev/null 2>&1
}

command -v node >/dev/null 2>&1 || die "node is not installed (it is needed to install the CLIs with npm)"
command -v npm >/dev/null 2>&1 || die "npm is not installed"

if ! up_to_date; then
	mkdir -p "$cache" || die "cannot create cache directory $cache"
	# A private package.json keeps npm from walking up to another project.
	[[ -f "$cache/package.json" ]] || echo '{"name":"lux-clis","private":true}' >"$cache/package.json"
	echo "install-clis: installing $CLAUDE_PKG@$CLAUDE_VERSION and $CODEX_PKG@$CODEX_VERSION into $cache" >&2
	if ! npm install --prefix "$cache" --no-audit --no-fund --save-exact --loglevel=error \
		"$CLAUDE_PKG@$CLAUDE_VERSION" "$CODEX_PKG@$CODEX_VERSION" >&2; then
		die "npm install failed (is the npm registry reachable?)"
	fi
	up_to_date || die "the CLIs were installed but do not run: check $bin/claude --version and $bin/codex --version"
fi

echo "install-clis: claude $("$bin/claude" --version 2>/dev/null | head -n1), codex $("$bin/codex" --version 2>/dev/null | head -n1)" >&2
echo "$bin"

#!/usr/bin/env bash
# install-clis.sh — install pinned versions of the agent CLIs warden's
# recordings and integration tests use, with npm, into a cache folder.
#
#   scripts/install-clis.sh [DIR]      DIR defaults to ~/.cache/warden-clis
#
# Idempotent: a package already installed at its pinned version is left alone.
# Prints the bin dir (DIR/node_modules/.bin) on stdout as the last line; all
# npm chatter goes to stderr. Override a pin with CLAUDE_CODE_VERSION,
# CODEX_VERSION, GEMINI_CLI_VERSION, OPENCODE_VERSION, QWEN_CODE_VERSION or
# COPILOT_VERSION.
set -euo pipefail

dir="${1:-${HOME}/.cache/warden-clis}"
claude_version="${CLAUDE_CODE_VERSION:-2.1.332}"
codex_version="${CODEX_VERSION:-0.171.0}"
gemini_version="${GEMINI_CLI_VERSION:-0.61.0}"
opencode_version="${OPENCODE_VERSION:-1.18.33}"
qwen_version="${QWEN_CODE_VERSION:-0.24.4}"
copilot_version="${COPILOT_VERSION:-1.0.102}"

command -v npm >/dev/null || { echo "install-clis: npm not found on PATH" >&2; exit 1; }
umask 077
mkdir -p "$dir"
chmod 700 "$dir"
cd "$dir"
[ -f package.json ] || printf '{"name":"warden-clis","private":true}\n' > package.json

installed_version() { # $1 = package name
	local pj="node_modules/$1/package.json"
	[ -f "$pj" ] || return 0
	node -e 'process.stdout.write(require(process.argv[1]).version)' "$PWD/$pj"
}

want=()
for spec in "@anthropic-ai/claude-code@${claude_version}" \
	"@openai/codex@${codex_version}" \
	"@google/gemini-cli@${gemini_version}" \
	"opencode-ai@${opencode_version}" \
	"@qwen-code/qwen-code@${qwen_version}" \
	"@github/copilot@${copilot_version}"; do
	name="${spec%@*}"
	version="${spec##*@}"
	have="$(installed_version "$name")"
	if [ "$have" = "$version" ]; then
		echo "install-clis: $name $version already installed" >&2
	else
		want+=("$spec")
	fi
done

if [ "${#want[@]}" -gt 0 ]; then
	echo "install-clis: npm install ${want[*]}" >&2
	npm install --no-audit --no-fund --save-exact "${want[@]}" >&2
fi

# Claude Code's postinstall links its native binary to bin/claude.exe; a
# newer npm may skip install scripts, so run it by hand when the link is missing.
claude_pkg="node_modules/@anthropic-ai/claude-code"
if [ -f "$claude_pkg/install.cjs" ] && ! "$dir/node_modules/.bin/claude" --version >/dev/null 2>&1; then
	echo "install-clis: running Claude Code's install.cjs" >&2
	(cd "$claude_pkg" && node install.cjs >&2)
fi

# OpenCode's launcher (bin/opencode.exe) is replaced by its platform
# package's native binary (opencode-linux-x64, an optional dependency fetched
# from npm like any other) in its postinstall; run it by hand when skipped.
opencode_pkg="node_modules/opencode-ai"
if [ -f "$opencode_pkg/postinstall.mjs" ] && ! "$dir/node_modules/.bin/opencode" --version >/dev/null 2>&1; then
	echo "install-clis: running OpenCode's postinstall.mjs" >&2
	(cd "$opencode_pkg" && node postinstall.mjs >&2)
fi

# Qwen Code's bundled ripgrep comes out of its tarball without the execute
# bit (0.24.4), and the CLI then shows a "Ripgrep not available" box.
qwen_rg="node_modules/@qwen-code/qwen-code/vendor/ripgrep/x64-linux/rg"
[ ! -f "$qwen_rg" ] || [ -x "$qwen_rg" ] || chmod u+x "$qwen_rg"

for bin in claude codex gemini opencode qwen copilot; do
	[ -x "node_modules/.bin/$bin" ] || { echo "install-clis: node_modules/.bin/$bin missing" >&2; exit 1; }
done
echo "$dir/node_modules/.bin"

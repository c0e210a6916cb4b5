#!/bin/sh
# claude-home DIR... -- COMMAND ARGS...
#
# Writes $HOME/.claude.json so that Claude Code starts straight at its input
# box in each DIR — no theme picker, no "trust this folder" screen, and no
# "Detected a custom API key" question (whose default answer is No) — then
# runs COMMAND. Under warden with on_dialog = "deny", each of those screens
# would be denied, and the agent restarted into the same screen.
#
# The keys are Claude Code's own (research/real-clis.md; measured again
# with 2.1.332 under warden): hasCompletedOnboarding,
# projects.<DIR>.hasTrustDialogAccepted and customApiKeyResponses.approved
# (the last 20 characters of $ANTHROPIC_API_KEY). Give each DIR as its real
# path. In a git repository Claude Code asks about the repository's top
# directory: trusting that covers its subdirectories and its worktrees
# (workspace = "worktree"), trusting a directory above it does not;
# outside git a trusted ancestor does.
# The file is written afresh at every start: the HOME is the job's own.
# Kept free of dollar-brace and percent-brace so that the Nomad example can
# carry it verbatim in a heredoc.
set -eu

projects=""
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
	dir=$1
	shift
	case $dir in
	/*) ;;
	*) echo "claude-home: $dir is not an absolute path" >&2; exit 2 ;;
	esac
	case $dir in
	*'"'* | *'\'*) echo "claude-home: $dir holds a quote or a backslash" >&2; exit 2 ;;
	esac
	[ -n "$projects" ] && projects="$projects, "
	projects="$projects\"$dir\": {\"hasTrustDialogAccepted\": true}"
done
if [ "$#" -lt 2 ]; then
	echo "usage: claude-home DIR... -- COMMAND ARGS..." >&2
	exit 2
fi
shift

approved=""
key=$(printenv ANTHROPIC_API_KEY || true)
if [ -n "$key" ]; then
	approved=\"$(printf '%s' "$key" | tail -c 20)\"
fi

mkdir -p "$HOME"
umask 077
tmp="$HOME/.claude.json.tmp"
printf '{"hasCompletedOnboarding": true, "theme": "dark", "customApiKeyResponses": {"approved": [%s], "rejected": []}, "projects": {%s}}\n' \
	"$approved" "$projects" >"$tmp"
mv -f "$tmp" "$HOME/.claude.json"
exec "$@"

# One warden per team as a Nomad batch job: a finished team is a finished
# job (complete on exit 0), not a service Nomad would start again forever.
# The state dir (checkpoints, handoffs, logs, state.json) lives on a host
# volume, so when Nomad restarts the task after a crash it carries the run on
# from its checkpoints with the same command: `warden run --resume` resumes
# the run the volume holds, or starts one when it holds none.
#
# The client needs the host volume in its configuration:
#   client { host_volume "warden" { path = "/srv/warden" read_only = false } }
# (/srv/warden owned by the user the task runs as, mode 0700, holding the
# repository the agent works in at /srv/warden/work; only clients with that
# volume are eligible, so keep it on one client: a replacement allocation
# elsewhere would not find the state), and warden plus the agent CLIs
# installed under /usr. Then:
#   nomad var put nomad/jobs/warden-team http_token=$(openssl rand -hex 16) anthropic_api_key=...
#   nomad job run examples/nomad/warden.nomad.hcl
#   nomad alloc logs -f -job warden-team      # hclog as JSON lines
#
# Why --resume and not plain `warden run`: Nomad restarts a batch task after
# any non-zero exit — it has no rule per exit code — and exit 1 mostly ends a
# run that finished (a task failed, or is blocked with nothing left to do):
# plain `run` would then start the team over, while --resume exits 1 again
# at once, so each spent restart costs nothing and the job ends failed. Two
# consequences: a run that max_runtime or stop_at stopped with tasks open
# (exit 1 too) is carried on by the restarts, so leave those keys out of a
# team under Nomad (or set restart attempts = 0); and once the run finished,
# running the job again exits at once with its code — to run the team
# again, move the state dir (/srv/warden/state) aside first, keeping it for
# the record.
#
# Stopping (nomad job stop, a drain) sends kill_signal and waits kill_timeout
# for warden's team checkpoint: checkpoint_timeout for the agents' last
# checkpoints, then shutdown_timeout for them to exit, then the handoff.
# kill_timeout is capped by the client's max_kill_timeout, 30s unless the
# client config raises it, so the team below keeps 20s + 5s = 25s under a
# 30s kill_timeout. For longer timeouts raise all three together:
#   client { max_kill_timeout = "2m" }  with kill_timeout = "2m" here.
# To stop the team, stop the job: `warden stop` inside the allocation exits
# 130, which Nomad restarts like any failure (and --resume carries on).
#
# The exec driver runs the task in a chroot holding only the client's
# chroot_env (by default /bin, /etc, /lib, /lib32, /lib64, /run/resolvconf,
# /sbin and /usr) plus the task dir and the volume: the task user's home is
# not there, whatever HOME Nomad sets. So the task runs with HOME on the
# volume (/usr/bin/env HOME=…), and claude-home — the script of
# examples/kubernetes/claude-home.sh, carried below as a template — writes
# Claude Code's onboarding and folder-trust file there (~/.claude.json: the
# work dir trusted, the API key approved) before warden starts, so that
# on_dialog = "deny" never meets a first-run screen.
job "warden-team" {
  type = "batch"

  group "team" {
    count = 1 # one warden per team: a second one is refused by the state dir's lock

    volume "warden" {
      type      = "host"
      source    = "warden"
      read_only = false
    }

    network {
      port "http" { static = 8080 }
    }

    # After a crash (a panic is exit 2, a kill by the OOM killer a signal):
    # restarted on this client, carrying the run on; exit 1 of a finished
    # run comes back at once each time.
    restart {
      attempts = 3
      interval = "1h"
      delay    = "30s"
      mode     = "fail"
    }

    # Then one new allocation (a client with the "warden" host volume).
    reschedule {
      attempts       = 1
      interval       = "24h"
      delay          = "1m"
      delay_function = "constant"
      unlimited      = false
    }

    task "warden" {
      driver       = "exec"
      user         = "warden"
      kill_signal  = "SIGTERM"
      kill_timeout = "30s"

      volume_mount {
        volume      = "warden"
        destination = "/srv/warden"
      }

      config {
        command = "/usr/bin/env"
        args    = ["HOME=/srv/warden/home", "/bin/sh", "${NOMAD_TASK_DIR}/claude-home.sh", "/srv/warden/work", "--", "/usr/local/bin/warden", "run", "--resume", "--log-format", "json", "--http", "0.0.0.0:8080", "${NOMAD_TASK_DIR}/team.toml"]
      }

      template {
        destination = "secrets/env"
        env         = true
        data        = <<-EOT
          WARDEN_HTTP_TOKEN={{ with nomadVar "nomad/jobs/warden-team" }}{{ .http_token }}{{ end }}
          ANTHROPIC_API_KEY={{ with nomadVar "nomad/jobs/warden-team" }}{{ .anthropic_api_key }}{{ end }}
        EOT
      }

      template {
        destination = "local/team.toml"
        data        = <<-EOT
          name = "nomad-team"
          state_dir = "/srv/warden/state"
          checkpoint_interval = "10m"
          checkpoint_timeout = "20s"
          # stale_warning above checkpoint_interval + checkpoint_timeout: an agent
          # that answers on time is never called stale (warden validate says so).
          stale_warning = "15m"
          stale_failure = "45m"
          shutdown_timeout = "5s"
          # The preset below draws no permission dialog; a dialog that still comes
          # up (a question) is denied after a minute and the agent told to carry on.
          on_dialog = "deny"
          dialog_timeout = "1m"

          [[agent]]
          name = "claude"
          profile = "claude"
          # The preset `warden init --cli claude` writes for a Node.js project
          # (package.json): Claude Code edits files in the project and runs npm, npx,
          # node, git (not push/fetch/pull) and ls/cat/head/tail/wc/grep/diff without
          # asking; anything else is refused at once (dontAsk) and the agent carries
          # on. For another project, run `warden init --cli claude` in its repository
          # and copy the command it writes.
          command = [
            "claude",
            "--permission-mode", "dontAsk",
            "--allowedTools", "Edit(./**)", "Write(./**)", "Bash(npm:*)", "Bash(npx:*)",
            "Bash(node:*)", "Bash(git status:*)", "Bash(git diff:*)", "Bash(git log:*)",
            "Bash(git show:*)", "Bash(git add:*)", "Bash(git commit:*)", "Bash(git restore:*)",
            "Bash(git checkout:*)", "Bash(git switch:*)", "Bash(git branch:*)",
            "Bash(git stash:*)", "Bash(git mv:*)", "Bash(git rm:*)", "Bash(git grep:*)",
            "Bash(git rev-parse:*)", "Bash(git ls-files:*)", "Bash(ls:*)", "Bash(cat:*)",
            "Bash(head:*)", "Bash(tail:*)", "Bash(wc:*)", "Bash(grep:*)", "Bash(diff:*)",
            "Bash(pwd:*)",
          ]
          dir = "/srv/warden/work"

          [[task]]
          id = "T001"
          title = "Make the test suite pass"
          prompt = "Run the test suite (npm test), fix what fails, and commit each fix with a message that says why."
          agent = "claude"
        EOT
      }

      template {
        destination = "local/claude-home.sh"
        data        = <<-EOT
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
        EOT
      }

      service {
        name     = "warden-team"
        port     = "http"
        provider = "nomad"
        check {
          type     = "http"
          path     = "/healthz" # answers without the token: 200 while the team runs
          interval = "30s"
          timeout  = "5s"
        }
      }
    }
  }
}

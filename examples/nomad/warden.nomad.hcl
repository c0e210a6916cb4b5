# One warden per team as a Nomad job: the state dir (checkpoints, handoffs,
# logs, state.json) lives on a host volume, so when Nomad restarts the task it
# carries on with the same command: `warden run --resume` resumes the run the
# volume holds, or starts one when it holds none.
#
# The client needs the host volume in its configuration:
#   client { host_volume "warden" { path = "/srv/warden" read_only = false } }
# (/srv/warden owned by the user the task runs as, mode 0700, holding the
# repository the agent works in at /srv/warden/work), and warden plus the agent
# CLIs installed under /usr (the exec driver's chroot has /usr). Then:
#   nomad var put nomad/jobs/warden-team http_token=$(openssl rand -hex 16) anthropic_api_key=...
#   nomad job run examples/nomad/warden.nomad.hcl
#   nomad alloc logs -f -job warden-team      # hclog as JSON lines
#
# Stopping the job sends SIGTERM and waits kill_timeout: warden takes a team
# checkpoint and exits, so kill_timeout must cover checkpoint_timeout +
# shutdown_timeout.
job "warden-team" {
  type = "service"

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

    restart {
      attempts = 10
      interval = "1h"
      delay    = "30s"
      mode     = "delay"
    }

    task "warden" {
      driver       = "exec"
      user         = "warden"
      kill_signal  = "SIGTERM"
      kill_timeout = "2m"

      volume_mount {
        volume      = "warden"
        destination = "/srv/warden"
      }

      config {
        command = "/usr/local/bin/warden"
        args    = ["run", "--resume", "--log-format", "json", "--http", "0.0.0.0:8080", "${NOMAD_TASK_DIR}/team.toml"]
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
          checkpoint_timeout = "60s"
          shutdown_timeout = "30s"
          on_dialog = "deny"
          dialog_timeout = "15m"

          [[agent]]
          name = "claude"
          command = ["claude", "--permission-mode", "acceptEdits"]
          profile = "claude"
          dir = "/srv/warden/work"

          [[task]]
          id = "T001"
          title = "Make the test suite pass"
          prompt = "Run the test suite, fix what fails, and commit each fix with a message that says why."
          agent = "claude"
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

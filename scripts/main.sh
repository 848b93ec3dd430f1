#!/usr/bin/env bash
# Set up what is needed and materialize the whole asset graph on the embedded default:
# SQLite Dagster instance, local Parquet under $MICROCODER_DATA (default ./data), CPU model.
set -euo pipefail
cd "$(dirname "$0")/.."

# Set-up as it goes: a line per environment when it starts and when it is ready (with its time),
# and while one is being built, what it is doing (the last step or pip line) every few seconds,
# rewritten in place on a terminal, a line every 25 s in a log. The full output goes to a file,
# named first. Ctrl-C or SIGTERM stops the step under way and everything it started.
log=$(mktemp -t microcoder-setup.XXXXXX)
echo "set-up: full log in $log"
export MICROCODER_SETUP_DETAIL=1  # pip says what it fetches and builds (scripts/pip-retry.sh), for the lines below
live=0
if [ -t 1 ] && [ "${TERM:-dumb}" != dumb ]; then live=1; fi
every=${MICROCODER_SETUP_REPORT_S:-25}  # in a log, a line at least this often while a step runs
step_pid=""

stop() {
  if [ -n "$step_pid" ]; then
    kill -TERM -- "-$step_pid" 2>/dev/null || true  # the step's own process group: pip and its children
    sleep 2
    kill -KILL -- "-$step_pid" 2>/dev/null || true
  fi
  [ "$live" = 1 ] && printf '\n'
  echo "set-up interrupted ($1); the environments finished so far are kept (log: $log)" >&2
  exit 130
}
trap 'stop SIGINT' INT
trap 'stop SIGTERM' TERM
trap 'stop SIGHUP' HUP

clock() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# What the step is doing: its last "== ..." line (the setup scripts' own steps), and pip's last
# Collecting / Downloading / Building / Installing line, both from the step's part of the log.
doing() {
  local part
  part=$(tail -c "+$(($1 + 1))" "$log" 2>/dev/null || true)
  local stage pip
  stage=$(printf '%s\n' "$part" | grep -E '^== ' | tail -n 1 | cut -c4- || true)
  pip=$(printf '%s\n' "$part" | grep -E '^ *(Collecting|Downloading|Building|Installing|Using cached|Successfully)' \
        | tail -n 1 | sed -E 's/^ +//' | cut -c1-90 || true)
  printf '%s' "${stage:-starting}${pip:+: $pip}"
}

started=$SECONDS
built=0
for step in "setup.sh .venv" "setup-train.sh .venv-train" "setup-vllm.sh .venv-vllm"; do
  read -r script env <<<"$step"
  begin=$SECONDS
  offset=$(stat -c %s "$log")
  setsid "scripts/$script" >>"$log" 2>&1 &  # a session of its own: stopped as one group on interrupt
  step_pid=$!
  said=$SECONDS
  while kill -0 "$step_pid" 2>/dev/null; do
    sleep 1
    if [ "$live" = 1 ] && [ $((SECONDS - begin)) -ge 3 ]; then
      printf '\r\033[Kset-up: %s %s: %s' "$env" "$(clock $((SECONDS - begin)))" "$(doing "$offset")"
    elif [ "$live" = 0 ] && [ $((SECONDS - said)) -ge "$every" ]; then
      echo "set-up: $env $(clock $((SECONDS - begin))): $(doing "$offset")"
      said=$SECONDS
    fi
  done
  [ "$live" = 1 ] && printf '\r\033[K'
  if ! wait "$step_pid"; then
    tail -n 40 "$log" >&2
    echo "set-up failed in scripts/$script (whole log: $log)" >&2
    exit 1
  fi
  step_pid=""
  if tail -c "+$((offset + 1))" "$log" | grep -q "^setting up $env "; then
    echo "set-up: $env ready in $(clock $((SECONDS - begin)))"
    built=$((built + 1))
  else
    echo "set-up: $env reused (unchanged since it was built)"
  fi
done
rm -f "$log"
[ "$built" = 0 ] || echo "set-up: $(clock $((SECONDS - started))) in all"
trap - INT TERM HUP
# Difficulty runs on vLLM's CPU build (.venv-vllm), measured faster end to end; translation and
# everything else on the `sampler` resource's default. MICROCODER_SAMPLER_BACKEND overrides both.
# Flags pass through to `microcoder run`: --sources, --sample N, --translate N, --jobs N,
# --verbose (Dagster's event log and verl's output on the terminal too), --from-failure; see README "Running".
# exec: the run is this process, so Ctrl-C or SIGTERM reaches it, and it stops everything it started.
exec .venv/bin/microcoder run "$@"

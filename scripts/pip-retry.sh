# Sourced by the setup scripts: `pip_install VENV ARGS...` is `VENV/bin/pip install ARGS...`, tried
# up to three times (with MICROCODER_SETUP_DETAIL=1, without -q: scripts/main.sh shows pip's lines). A wheel cut off mid-download (CI once lost llvmlite at 34 of 56 MB, and pip's
# six resumes all stopped at the same byte) should cost a retry, not the run; pip's cache keeps the
# wheels the earlier tries finished, so a retry fetches only what is missing.
export PIP_RETRIES=${PIP_RETRIES:-10} PIP_TIMEOUT=${PIP_TIMEOUT:-60}
PIP_RETRY_PAUSE_S=${PIP_RETRY_PAUSE_S:-30}  # before the second try; twice that before the third

pip_install() {
  local venv=$1 try arg
  shift
  if [ "${MICROCODER_SETUP_DETAIL:-}" = 1 ]; then  # scripts/main.sh: pip's lines say what it fetches and builds
    local args=(--progress-bar off)
    for arg in "$@"; do [ "$arg" = -q ] || args+=("$arg"); done
    set -- "${args[@]}"
  fi
  for try in 1 2 3; do
    "$venv/bin/pip" install "$@" && return 0
    [ "$try" = 3 ] && break
    echo "pip install $* failed (try $try of 3); trying again in $((try * PIP_RETRY_PAUSE_S)) s ..." >&2
    sleep $((try * PIP_RETRY_PAUSE_S))
  done
  return 1
}

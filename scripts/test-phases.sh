#!/usr/bin/env bash
# `make test` once its venvs are built: lint, the `exclusive` tests and the rest of the
# suite (phase 1) side by side (docs/testing.md, "Three at once"). Phase 1 keeps both
# cores busy; the exclusive tests mostly wait (leases running out, servers starting) and
# lint is one core for a few seconds, so run one after the other they left a core idle
# for about a minute. Phase 1 prints live; lint's and the exclusive phase's output are
# printed whole once phase 1 ends, each under its own heading. Fails if any of the three
# failed, after all three have finished.
# Usage: scripts/test-phases.sh WORKERS
set -uo pipefail
cd "$(dirname "$0")/.."
workers="${1:?usage: scripts/test-phases.sh WORKERS}"
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT

# A file's tests stay on one worker (--dist loadfile): the two 100-client tests never overlap.
exclusive() {
  .venv/bin/pytest -q -n 2 --dist loadfile -m exclusive --durations=15
}

MAKEFLAGS= make --no-print-directory lint >"$logs/lint" 2>&1 &
lint_pid=$!
exclusive >"$logs/exclusive" 2>&1 &
exclusive_pid=$!
echo "lint and the exclusive tests run beside phase 1; their output follows it" >&2
.venv/bin/pytest -q -n "$workers" --dist loadfile -m "not exclusive" --durations=15
phase1=$?
wait "$lint_pid"
lint_status=$?
wait "$exclusive_pid"
exclusive_status=$?

printf '\n==== make lint ====\n'
cat "$logs/lint"
printf '\n==== the exclusive tests (-m exclusive, 2 workers) ====\n'
cat "$logs/exclusive"
failed=()
[ "$lint_status" -eq 0 ] || failed+=("lint ($lint_status)")
[ "$phase1" -eq 0 ] || failed+=("phase 1 ($phase1)")
[ "$exclusive_status" -eq 0 ] || failed+=("the exclusive tests ($exclusive_status)")
if [ "${#failed[@]}" -gt 0 ]; then
  echo "make test failed: ${failed[*]}" >&2
  exit 1
fi

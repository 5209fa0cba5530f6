#!/usr/bin/env bash
# The suite's flakiness check: the whole suite N times in a row (default 5) while two busy
# loops keep both cores loaded. Prints one line per run and a summary; exits non-zero if
# any run had a failure. A suite that passes here does not depend on timing.
#
#   scripts/stress-suite.sh        five runs
#   scripts/stress-suite.sh 1      one run
set -uo pipefail

runs="${1:-5}"
if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/stress-suite.sh [runs]   (runs: a whole number, default 5)" >&2
  exit 2
fi

cd "$(dirname "$0")/.."
logs="$(mktemp -d "${TMPDIR:-/tmp}/outrider-stress-XXXXXX")"

busy=()
stop_busy() {
  # Only the loops this script started, by pid.
  for pid in ${busy[@]+"${busy[@]}"}; do kill "$pid" 2>/dev/null; done
  for pid in ${busy[@]+"${busy[@]}"}; do wait "$pid" 2>/dev/null; done
  busy=()
}
trap stop_busy EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# `node` runs directly (no subshell), so $! is the loop itself.
for _ in 1 2; do
  node -e 'for(;;);' &
  busy+=("$!")
done
echo "stress: ${runs} run(s) of the whole suite beside two busy loops (pids ${busy[*]}); logs in ${logs}"

# Reads vitest's JSON report: "passed failed", then the failed tests one per line.
summarize() {
  node -e '
    const report = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const failedFiles = report.testResults.filter((f) => f.status === "failed" && f.assertionResults.every((a) => a.status !== "failed"));
    console.log(`${report.numPassedTests} ${report.numFailedTests + failedFiles.length}`);
    for (const file of report.testResults) {
      const name = file.name.replace(process.cwd() + "/", "");
      for (const a of file.assertionResults) if (a.status === "failed") console.log(`${name} > ${a.fullName}`);
      if (failedFiles.includes(file)) console.log(`${name}: ${(file.message || "failed outside a test").split("\n")[0]}`);
    }
  ' "$1"
}

failed_runs=0
total_seconds=0
for ((run = 1; run <= runs; run++)); do
  report="${logs}/run-${run}.json"
  started=$(date +%s%N)
  npx vitest run --reporter=default --reporter=json --outputFile.json="$report" >"${logs}/run-${run}.log" 2>&1
  status=$?
  # 130/143: vitest was stopped by Ctrl+C or a kill, not failed; stop here (the trap ends the loops).
  if ((status == 130 || status == 143)); then
    echo "stress: interrupted during run ${run}"
    exit "$status"
  fi
  seconds=$(( ($(date +%s%N) - started) / 1000000000 ))
  total_seconds=$((total_seconds + seconds))
  if [[ -s "$report" ]] && summary="$(summarize "$report")"; then
    read -r passed failed <<<"$(head -n1 <<<"$summary")"
    details="$(tail -n +2 <<<"$summary")"
  else
    passed=0 failed=1 details="no JSON report: vitest exited with ${status} (see ${logs}/run-${run}.log)"
  fi
  if [[ "$failed" -eq 0 && "$status" -ne 0 ]]; then
    failed=1 details="vitest exited with ${status} with no failed test (see ${logs}/run-${run}.log)"
  fi
  printf 'run %d/%d: %d passed, %d failed, %ds\n' "$run" "$runs" "$passed" "$failed" "$seconds"
  if [[ "$failed" -ne 0 ]]; then
    failed_runs=$((failed_runs + 1))
    [[ -n "$details" ]] && sed 's/^/    /' <<<"$details"
  fi
done

stop_busy
if [[ "$failed_runs" -eq 0 ]]; then
  echo "stress: all ${runs} run(s) passed under load (${total_seconds}s in all)"
  exit 0
fi
echo "stress: ${failed_runs} of ${runs} run(s) had failures (${total_seconds}s in all); logs in ${logs}"
exit 1

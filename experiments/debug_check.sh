#!/usr/bin/env bash
# The engine's tests under a debug build: Cython's bounds, wraparound and initialisation checks,
# AddressSanitizer and UndefinedBehaviorSanitizer (setup.py, SPLENDOR_DEBUG=1).
#
#   experiments/debug_check.sh                      the engine, rules, differential, simulation,
#                                                   search and fuzz tests (default selection)
#   experiments/debug_check.sh -m slow tests/test_differential.py     any pytest arguments instead
#
# The working tree (tracked and new files, not ignored ones) is copied to a temporary folder and
# built there, so the checkout and its installed build are left alone; the folder is removed at
# the end (KEEP=1 keeps it). Python runs with libasan preloaded (the interpreter itself is not
# instrumented), the system allocator (PYTHONMALLOC=malloc, so ASan sees every object), leak
# reports off (the interpreter keeps memory to the end) and every report fatal: a sanitizer
# finding fails the run with its stack trace. Expect a few minutes to build and 5-10 times the
# tests' usual time.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/splendor-debug.XXXXXX")
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$WORK"' EXIT

if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
  (cd "$ROOT" && git ls-files -z --cached --others --exclude-standard |
     tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$WORK"
else
  cp -a "$ROOT/." "$WORK" && rm -rf "$WORK/build" && find "$WORK" -name '*.so' -delete
fi
cd "$WORK"
echo "debug build in $WORK" >&2
if ! SPLENDOR_DEBUG=1 python3 setup.py build_ext --inplace -q >build.log 2>&1; then
  tail -40 build.log >&2
  exit 2
fi

ASAN=$(${CC:-gcc} -print-file-name=libasan.so)
[ -e "$ASAN" ] || { echo "no libasan.so found (gcc -print-file-name=libasan.so gave $ASAN)" >&2; exit 2; }
# libstdc++ too: ASan must find the C++ runtime's __cxa_throw at start, or a C++ exception in a
# library loaded later (the experiment scripts' imports) aborts with "CHECK failed ... __cxa_throw"
CXXLIB=$(${CC:-gcc} -print-file-name=libstdc++.so)
[ -e "$CXXLIB" ] && ASAN="$ASAN:$CXXLIB"
if [ $# -eq 0 ]; then
  set -- $(ls tests/test_differential*.py tests/test_simulation*.py tests/test_network.py \
              tests/test_engine_*.py tests/test_rules*.py tests/test_modules_*.py tests/test_players*.py \
              tests/test_expectimax.py tests/test_evaluation.py tests/test_hidden_info.py tests/test_fuzz.py \
              2>/dev/null)
fi
export LD_PRELOAD="$ASAN${LD_PRELOAD:+:$LD_PRELOAD}" PYTHONMALLOC=malloc PYTHONPATH="$WORK"
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:halt_on_error=1:print_stacktrace=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
python3 - <<'EOF'
import splendor_ai._engine as e
assert "splendor-debug" in e.__file__, e.__file__     # the debug build, not an installed one
EOF
# --capture=sys: a sanitizer's report (written to file descriptor 2 just before it aborts the
# process) reaches the terminal instead of pytest's captured output, which the abort loses
python3 -m pytest -q -p no:cacheprovider --capture=sys "$@"

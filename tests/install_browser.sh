#!/usr/bin/env bash
# The Chromium that the browser tests (tests/test_web_browser.py) drive: Debian's /usr/bin/chromium
# when it is there; else Playwright's own build (a download from Playwright's CDN); else Debian's
# package (as root). Fails, saying so, when none can be had: the tests must not skip.
set -uo pipefail
[ -x /usr/bin/chromium ] && exit 0
python3 -m playwright install chromium && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null && exit 0
fi
echo "no Chromium for the browser tests: install Debian's chromium package, or run" \
     "'python -m playwright install chromium' where Playwright's CDN is reachable" >&2
exit 1

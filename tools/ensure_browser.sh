#!/bin/sh
# Make sure a browser for the page tests (tests/browser/test_web_browser.py) is here: Debian's
# chromium, driven by the Python playwright package through executable_path. Playwright's
# own browser download (`playwright install`) is never used: it cannot work offline.
#
# As root with apt-get: installs chromium quietly (apt-get update first only if the
# plain install fails). Otherwise it says why the browser tests will skip. Always exits 0:
# a missing browser skips those tests, it does not fail the build.
CHROMIUM=${ZUNI_CHROMIUM:-/usr/bin/chromium}

if [ -x "$CHROMIUM" ]; then
    exit 0
fi
if [ "$(id -u)" != "0" ]; then
    echo "ensure_browser: $CHROMIUM is missing and this is not root: the browser tests will skip" \
        "(install Debian's chromium: sudo apt-get install chromium)" >&2
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure_browser: $CHROMIUM is missing and there is no apt-get: the browser tests will skip" >&2
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
if ! apt-get install -y -q chromium >"$log" 2>&1; then
    apt-get update -q >>"$log" 2>&1
    if ! apt-get install -y -q chromium >>"$log" 2>&1; then
        echo "ensure_browser: apt-get install chromium failed: the browser tests will skip; the end of its log:" >&2
        tail -n 5 "$log" >&2
        rm -f "$log"
        exit 0
    fi
fi
rm -f "$log"
if [ -x "$CHROMIUM" ]; then
    echo "ensure_browser: installed $("$CHROMIUM" --version 2>/dev/null | head -n 1)"
else
    echo "ensure_browser: chromium installed but $CHROMIUM is not there: the browser tests will skip" >&2
fi
exit 0

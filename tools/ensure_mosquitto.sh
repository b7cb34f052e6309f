#!/bin/sh
# Make sure Mosquitto (Debian's package) is here for the remote-game tests
# (tests that start their own broker on a free loopback port, with a generated config).
#
# As root with apt-get: installs mosquitto quietly (apt-get update first only if the plain
# install fails); its system service is not needed and is left stopped: every test starts
# its own broker. Otherwise it says why the Mosquitto tests will skip. Always exits 0: a
# missing broker skips those tests (they name the reason), it does not fail the build.
MOSQUITTO=${ZUNI_MOSQUITTO:-/usr/sbin/mosquitto}

if [ -x "$MOSQUITTO" ]; then
    exit 0
fi
if [ "$(id -u)" != "0" ]; then
    echo "ensure_mosquitto: $MOSQUITTO is missing and this is not root: the Mosquitto tests will skip" \
        "(install Debian's mosquitto: sudo apt-get install mosquitto)" >&2
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure_mosquitto: $MOSQUITTO is missing and there is no apt-get: the Mosquitto tests will skip" >&2
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
# policy-rc.d 101: do not start the system's broker on port 1883 while installing.
policy=/usr/sbin/policy-rc.d
made_policy=""
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && made_policy=1
fi
if ! apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends mosquitto >"$log" 2>&1; then
    apt-get -o DPkg::Lock::Timeout=600 update -q >>"$log" 2>&1
    if ! apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends mosquitto >>"$log" 2>&1; then
        echo "ensure_mosquitto: apt-get install mosquitto failed: the Mosquitto tests will skip; the end of its log:" >&2
        tail -n 5 "$log" >&2
    fi
fi
[ -n "$made_policy" ] && rm -f "$policy"
rm -f "$log"
if [ -x "$MOSQUITTO" ]; then
    echo "ensure_mosquitto: installed $("$MOSQUITTO" -h 2>/dev/null | head -n 1)"
else
    echo "ensure_mosquitto: $MOSQUITTO is not there: the Mosquitto tests will skip" >&2
fi
exit 0

#!/bin/sh
# Make sure a speech engine for the spoken-move tests (tests of zuniboard.play.speech) is
# here: Debian's espeak-ng, which pyttsx3 drives on Linux (and alsa-utils' aplay, with
# which pyttsx3 plays its sound). As ensure_browser.sh: as root with apt-get it installs
# them quietly (apt-get update first only if the plain install fails); otherwise it says
# why the audio tests will skip. Always exits 0: a missing engine skips those tests (the
# spoken text is tested everywhere), it does not fail the build.
if command -v espeak-ng >/dev/null 2>&1 && command -v aplay >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" != "0" ]; then
    echo "ensure_speech: espeak-ng or aplay is missing and this is not root: the audio tests will skip" \
        "(install Debian's espeak-ng and alsa-utils: sudo apt-get install espeak-ng alsa-utils)" >&2
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure_speech: espeak-ng is missing and there is no apt-get: the audio tests will skip" >&2
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
if ! apt-get install -y -q espeak-ng alsa-utils >"$log" 2>&1; then
    apt-get update -q >>"$log" 2>&1
    if ! apt-get install -y -q espeak-ng alsa-utils >>"$log" 2>&1; then
        echo "ensure_speech: apt-get install espeak-ng alsa-utils failed: the audio tests will skip; the end of its log:" >&2
        tail -n 5 "$log" >&2
        rm -f "$log"
        exit 0
    fi
fi
rm -f "$log"
echo "ensure_speech: installed $(espeak-ng --version 2>/dev/null | head -n 1)"
exit 0

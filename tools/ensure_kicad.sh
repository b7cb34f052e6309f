#!/bin/sh
# Make sure KiCad 9's kicad-cli and its stock symbol and footprint libraries are here for the
# hardware tests (tests/test_kicad.py): ERC, DRC with schematic parity, netlist export, fab
# outputs. KiCad 9 is in Debian 13's main suite; on Debian 12 it is in bookworm-backports,
# taken from the same archive that the machine's apt sources already name (the source line
# is derived from /etc/apt/sources.list*, no host name is written here).
#
# As root with apt-get: installs kicad, kicad-symbols and kicad-footprints without the 3D
# models (about 820 MB). Otherwise it says why the KiCad tests will skip. Always exits 0: a
# missing KiCad skips those tests, it does not fail the build.
KICAD_CLI=${ZUNI_KICAD_CLI:-/usr/bin/kicad-cli}

kicad_major() {
    "$KICAD_CLI" version 2>/dev/null | head -n 1 | cut -d. -f1
}

if [ -x "$KICAD_CLI" ] && [ "$(kicad_major)" -ge 9 ] 2>/dev/null; then
    exit 0
fi
if [ "$(id -u)" != "0" ]; then
    echo "ensure_kicad: KiCad 9's kicad-cli is missing and this is not root: the KiCad tests will skip" \
        "(install Debian's kicad 9: on Debian 12 from bookworm-backports)" >&2
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure_kicad: KiCad 9 is missing and there is no apt-get: the KiCad tests will skip" >&2
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
target=""
if [ "$codename" = "bookworm" ]; then
    target="-t bookworm-backports"
    list=/etc/apt/sources.list.d/zuni-bookworm-backports.sources
    if ! grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
        /etc/apt/sources.list.d/*.sources; then
        # The archive that serves "bookworm" (not the security archive) also serves
        # bookworm-backports: take its URI and key from the deb822 or one-line sources.
        uri=$(awk '
            /^[Uu][Rr][Ii][Ss]:/ { u = $2 }
            /^[Ss]uites:/ { for (i = 2; i <= NF; i++) if ($i == "bookworm") s = 1 }
            /^[[:space:]]*$/ { if (s && u != "" && !found) found = u; u = ""; s = 0 }
            END { if (s && u != "" && !found) found = u; print found }
        ' /etc/apt/sources.list.d/*.sources 2>/dev/null)
        if [ -z "$uri" ]; then
            uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
                awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i !~ /^\[/) { if ($(i+1) == "bookworm") { print $i; exit } else break } }')
        fi
        if [ -z "$uri" ]; then
            echo "ensure_kicad: no apt source names Debian bookworm, so bookworm-backports cannot be" \
                "derived: the KiCad tests will skip" >&2
            exit 0
        fi
        {
            echo "Types: deb"
            echo "URIs: $uri"
            echo "Suites: bookworm-backports"
            echo "Components: main"
            if [ -f /usr/share/keyrings/debian-archive-keyring.gpg ]; then
                echo "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg"
            fi
        } >"$list"
        echo "ensure_kicad: added bookworm-backports from $list"
    fi
fi
log=$(mktemp)
# shellcheck disable=SC2086 # $target is empty or two words on purpose
if ! apt-get install -y -q --no-install-recommends $target kicad kicad-symbols kicad-footprints >"$log" 2>&1; then
    apt-get update -q >>"$log" 2>&1
    # shellcheck disable=SC2086
    if ! apt-get install -y -q --no-install-recommends $target kicad kicad-symbols kicad-footprints >>"$log" 2>&1; then
        echo "ensure_kicad: apt-get install kicad failed: the KiCad tests will skip; the end of its log:" >&2
        tail -n 5 "$log" >&2
        rm -f "$log"
        exit 0
    fi
fi
rm -f "$log"
if [ -x "$KICAD_CLI" ]; then
    echo "ensure_kicad: installed kicad-cli $("$KICAD_CLI" version 2>/dev/null | head -n 1)"
else
    echo "ensure_kicad: kicad installed but $KICAD_CLI is not there: the KiCad tests will skip" >&2
fi
exit 0

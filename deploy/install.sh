#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs dsbridged: binary, web root, systemd units, config (deploy/README.md).
#
#   deploy/install.sh [--root DIR] [--binary PATH] [--web-source DIR]
#
#   --root DIR       install below DIR instead of / (DESTDIR also works); used by tests
#   --binary PATH    the daemon to install (default .build/release/dsbridged)
#   --web-source DIR static files to install (default web/ of this checkout)
#
# Idempotent: a second run refreshes the binary, the page client in the web root (dsbridge.js,
# the ES module dsbridge.mjs and dsbridge-module.mjs, dsbridge.d.ts, package.json), the units
# (dsbridged.service, and dsbridged@.service for cluster nodes) and the example configs, and
# keeps everything an operator owns: the configs (and their admin tokens) and any page in the
# web root. Only with the real root (/) does it create the system user, chown the configs to
# it and run `systemctl daemon-reload`.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/.." && pwd)"
root="${DESTDIR:-/}"
binary="$repo/.build/release/dsbridged"
web_source="$repo/web"

die() { echo "install.sh: $*" >&2; exit 1; }
say() { echo "install.sh: $*"; }
warn() { echo "install.sh: warning: $*" >&2; }

while [ $# -gt 0 ]; do
    case "$1" in
        --root) [ $# -ge 2 ] || die "--root needs a directory"; root="$2"; shift 2 ;;
        --root=*) root="${1#*=}"; shift ;;
        --binary) [ $# -ge 2 ] || die "--binary needs a path"; binary="$2"; shift 2 ;;
        --binary=*) binary="${1#*=}"; shift ;;
        --web-source) [ $# -ge 2 ] || die "--web-source needs a directory"; web_source="$2"; shift 2 ;;
        --web-source=*) web_source="${1#*=}"; shift ;;
        -h|--help) sed -n '3,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument $1 (see --help)" ;;
    esac
done

[ -f "$binary" ] && [ -x "$binary" ] || die "no executable at $binary; build it first: swift build -c release --product dsbridged --static-swift-stdlib"
# The page client (the npm package dsbridged-client of web/package.json, docs/PAGES.md, and the
# scripts for WebViewJavascriptBridge and WKWebView pages): these files follow the daemon's
# protocol and are replaced on every run. Dependencies first
# (dsbridge.mjs imports dsbridge-module.mjs and dsbridge.js), so a page loading the module
# during an upgrade does not get a new dsbridge.mjs over an old dsbridge.js.
client_files=(dsbridge.js dsbridge-module.mjs dsbridge.mjs dsbridge.d.ts package.json wvjb.js wvjb.d.ts webkit.js webkit.d.ts hotwire.js hotwire.d.ts)
for f in "${client_files[@]}"; do
    [ -f "$web_source/$f" ] || die "$web_source has no $f (the page client: ${client_files[*]})"
done
[ -d "$root" ] || die "root $root does not exist"
root="$(cd "$root" && pwd)"
real_root=no
[ "$root" = "/" ] && real_root=yes
prefix="${root%/}"   # "" for the real root, so "$prefix/etc" is "/etc"
if [ "$real_root" = yes ] && [ "$(id -u)" != 0 ]; then
    die "installing into / needs root (sudo deploy/install.sh)"
fi

bin_dir="$prefix/usr/local/bin"
share_dir="$prefix/usr/local/share/dsbridged"
web_dir="$share_dir/web"
doc_dir="$prefix/usr/local/share/doc/dsbridged"
unit_dir="$prefix/etc/systemd/system"
conf_dir="$prefix/etc/dsbridged"
conf="$conf_dir/dsbridged.json"

umask 022

# Copies $1 to $2 with mode $3 through a temporary file and a rename, so a running daemon
# or a reader never sees a half-written file.
put() {
    local src="$1" dst="$2" mode="$3" tmp
    tmp="$(dirname "$dst")/.$(basename "$dst").new.$$"
    install -m "$mode" "$src" "$tmp"
    mv -f "$tmp" "$dst"
}

# 1. The system user (real root only): no home, no shell, no login.
group=""
if [ "$real_root" = yes ]; then
    if ! getent passwd dsbridged >/dev/null; then
        useradd --system --user-group --no-create-home --home-dir /nonexistent \
            --shell /usr/sbin/nologin --comment "dsbridged daemon" dsbridged
        say "created system user dsbridged"
    else
        say "system user dsbridged exists"
    fi
    group=dsbridged
else
    say "root is $root: not creating the dsbridged user, config stays root-owned"
fi

# 2. Directories.
install -d -m 0755 "$bin_dir" "$web_dir" "$doc_dir" "$unit_dir"
install -d -m 0750 "$conf_dir"
[ -n "$group" ] && chgrp "$group" "$conf_dir"

# 3. Binary, unit, guide.
put "$binary" "$bin_dir/dsbridged" 0755
say "installed $bin_dir/dsbridged"
put "$here/dsbridged.service" "$unit_dir/dsbridged.service" 0644
say "installed $unit_dir/dsbridged.service"
put "$here/dsbridged@.service" "$unit_dir/dsbridged@.service" 0644
say "installed $unit_dir/dsbridged@.service (cluster nodes: dsbridged@N reads $conf_dir/N.json)"
put "$here/README.md" "$doc_dir/README.md" 0644
put "$here/nginx-dsbridged.conf" "$doc_dir/nginx-dsbridged.conf" 0644
put "$here/haproxy-dsbridged.cfg" "$doc_dir/haproxy-dsbridged.cfg" 0644

# 4. Web root: the page client (script, ES module, typings, package.json) always follows the
#    daemon; every other file (the demo page) is installed only when absent, so the
#    operator's pages stay.
for f in "${client_files[@]}"; do
    put "$web_source/$f" "$web_dir/$f" 0644
done
say "installed the page client in $web_dir: ${client_files[*]}"
(cd "$web_source" && find . -type f ! -path './tests/*' ! -name '.*') |
while IFS= read -r f; do
    f="${f#./}"
    case " ${client_files[*]} " in *" $f "*) continue ;; esac
    if [ ! -e "$web_dir/$f" ]; then
        install -d -m 0755 "$(dirname "$web_dir/$f")"
        put "$web_source/$f" "$web_dir/$f" 0644
    fi
done
say "installed web root $web_dir"

# 5. Config: never overwritten. A new one gets a random admin token. The cluster node's
#    example (copy it to N.json for dsbridged@N, README section 10) is only an example.
put "$here/dsbridged.json" "$conf_dir/dsbridged.json.example" 0640
put "$here/dsbridged-node.json" "$conf_dir/node.json.example" 0640
if [ -e "$conf" ]; then
    say "kept existing $conf"
    case "$(stat -c %a "$conf")" in
        *[1-7]) warn "$conf is readable by others: chmod 0640 $conf" ;;
    esac
else
    token="$(head -c 48 /dev/urandom | base64 -w 0 | tr -d '/+=')"
    token="${token:0:32}"
    [ "${#token}" -ge 24 ] || die "could not generate an admin token"
    tmp="$conf_dir/.dsbridged.json.new.$$"
    (umask 077; sed "s/@ADMIN_TOKEN@/$token/" "$here/dsbridged.json" > "$tmp")
    chmod 0640 "$tmp"
    [ -n "$group" ] && chgrp "$group" "$tmp"
    mv -f "$tmp" "$conf"
    say "wrote $conf with a new random admin-token (edit allowed-origin before starting)"
fi
if [ -n "$group" ]; then
    chgrp "$group" "$conf_dir/dsbridged.json.example" "$conf_dir/node.json.example"
    # An existing config must stay readable by the service (root:dsbridged 0640).
    [ "$(stat -c %G "$conf")" = "$group" ] || warn "$conf is not group $group: chgrp $group $conf && chmod 0640 $conf"
fi

# 6. Runtime libraries the binary needs on this host.
if command -v dpkg-query >/dev/null; then
    # libwebsockets and its libuv event-loop plugin (loaded at run time, so ldd does not see
    # it), hiredis for cluster mode (linked in any case).
    for pkg in libwebsockets17 libwebsockets-evlib-uv libhiredis0.14; do
        if [ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)" != "install ok installed" ]; then
            warn "$pkg is not installed; install it with: apt-get install -y $pkg"
        else
            say "$pkg is installed"
        fi
    done
fi
if command -v ldd >/dev/null; then
    missing="$(ldd "$bin_dir/dsbridged" 2>/dev/null | awk '/not found/ {print $1}' | tr '\n' ' ')"
    if [ -n "$missing" ]; then
        warn "the binary cannot find: $missing"
        warn "(libswift*/libFoundation*: build with --static-swift-stdlib; libwebsockets: apt-get install libwebsockets17; libhiredis: apt-get install libhiredis0.14)"
    fi
    if ldd "$bin_dir/dsbridged" 2>/dev/null | grep -q 'libswiftCore.so'; then
        warn "the binary links the Swift runtime dynamically ($(ldd "$bin_dir/dsbridged" | awk '/libswiftCore/ {print $3}'));"
        warn "it must exist on this host; a release build with --static-swift-stdlib needs no Swift on the server"
    fi
fi

# 7. systemd (real root with a running systemd only).
if [ "$real_root" = yes ] && [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then
    systemctl daemon-reload
    say "systemctl daemon-reload done"
    if systemctl is-active --quiet dsbridged; then
        say "dsbridged is running the old binary; restart it (drains, then starts): systemctl restart dsbridged"
    else
        say "next: edit $conf (allowed-origin), then: systemctl enable --now dsbridged"
    fi
    say "cluster nodes instead (README section 10): $conf_dir/N.json from node.json.example, then systemctl enable --now dsbridged@N"
    say "check: systemctl status dsbridged; journalctl -u dsbridged; curl -s http://127.0.0.1:8081/healthz"
else
    say "not the running system's root (or no systemd): no daemon-reload"
fi
say "done"

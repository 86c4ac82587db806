#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Rebuilds web/tests/hotwire/ (the Hotwire Native bridge fixture of
# scripts/hotwire_browser_test.py) from the real libraries' sources, with Debian's esbuild:
# the hotwire-native-demo's application.js and bridge controllers (unchanged) bundled with
# @hotwired/turbo 8.0.2 (and idiomorph at the commit turbo's yarn.lock names),
# @hotwired/stimulus 3.2.2 and @hotwired/hotwire-native-bridge 1.0.0, the versions the demo's
# import map loads; the demo's three bridge views rendered into its layout as static pages.
#
#     scripts/build-hotwire-fixture.sh GIT_DIR_OF_MIRRORS
#
# GIT_DIR_OF_MIRRORS holds bare clones named OWNER+NAME/repo (hotwired+turbo,
# hotwired+stimulus, hotwired+hotwire-native-bridge, hotwired+hotwire-native-demo,
# bigskysoftware+idiomorph). The commits are fixed below; the output is deterministic.
set -euo pipefail
cd "$(dirname "$0")/.."
mirrors="${1:?usage: $0 GIT_DIR_OF_MIRRORS}"
command -v esbuild >/dev/null || { echo "error: esbuild missing (apt-get install esbuild)" >&2; exit 1; }

TURBO=fccb3a4e5b2a47e63b50efe8333ec7a3265006c1     # v8.0.2
STIMULUS=8cbca6db3b1b2ddb384deb3dd98397d3609d25a0  # v3.2.2
BRIDGE=7839c71fee9163bcaf73b19c29a319e7a07fbe02    # v1.0.0
DEMO=f5d60c343a1cf741f50aaec930e2ff17c267df26      # main, 2024-09-25
IDIOMORPH=b5115add9f7ab04c04af0624385540dff04e0735 # turbo 8.0.2's yarn.lock

out=web/tests/hotwire
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
extract() { # repo commit dir [paths...]
  local repo="$1" commit="$2" dir="$3"
  shift 3
  mkdir -p "$work/$dir"
  git --git-dir="$mirrors/$repo/repo" archive "$commit" "$@" 2>/dev/null | tar -x -C "$work/$dir"
}
extract hotwired+turbo "$TURBO" turbo src package.json MIT-LICENSE
extract hotwired+stimulus "$STIMULUS" stimulus src LICENSE.md
extract hotwired+hotwire-native-bridge "$BRIDGE" bridge src LICENSE
extract hotwired+hotwire-native-demo "$DEMO" demo public/javascript public/styles views package.json
extract bigskysoftware+idiomorph "$IDIOMORPH" idiomorph dist/idiomorph.esm.js LICENSE

rm -rf "$out/app" "$out/styles"
mkdir -p "$out/app" "$out/styles"
cp -r "$work/demo/public/javascript/." "$out/app/"
cp "$work/demo/public/styles/"{base,utilities,app}.css "$out/styles/"
cp "$work/turbo/MIT-LICENSE" "$out/LICENSE.turbo"
cp "$work/stimulus/LICENSE.md" "$out/LICENSE.stimulus"
cp "$work/bridge/LICENSE" "$out/LICENSE.hotwire-native-bridge"
cp "$work/idiomorph/LICENSE" "$out/LICENSE.idiomorph"

# Run from $work so that the bundle's path comments name the sources (turbo/src/...).
cp -r "$out/app" "$work/app"
(cd "$work" && esbuild app/application.js --bundle --format=esm --target=es2020 --log-level=warning \
  --alias:@hotwired/turbo=./turbo/src/index.js \
  --alias:@hotwired/stimulus=./stimulus/src/index.ts \
  --alias:@hotwired/hotwire-native-bridge=./bridge/src/index.js \
  --alias:idiomorph=./idiomorph \
  --outfile=application.js)
# The library alone as a classic script, for a page where its bridge object exists before
# hotwire.js runs (bridge-form-bridge-first.html).
(cd "$work" && esbuild bridge/src/index.js --bundle --format=iife --target=es2020 --log-level=warning \
  --alias:@hotwired/stimulus=./stimulus/src/index.ts --outfile=bridge-first.js)
{
  echo "// Built by scripts/build-hotwire-fixture.sh with esbuild $(esbuild --version): @hotwired/hotwire-native-bridge"
  echo "// 1.0.0 (src/index.js) as a classic script: it creates window.Strada.web when it runs; licences: LICENSE.*"
  cat "$work/bridge-first.js"
} > "$out/bridge-first.js"
{
  echo "// Built by scripts/build-hotwire-fixture.sh with esbuild $(esbuild --version): app/application.js"
  echo "// (hotwire-native-demo $DEMO) with @hotwired/turbo 8.0.2, @hotwired/stimulus 3.2.2,"
  echo "// @hotwired/hotwire-native-bridge 1.0.0 and idiomorph $IDIOMORPH; licences: LICENSE.*"
  cat "$work/application.js"
} > "$out/application.bundle.js"

# The demo's layout (views/layout.ejs) with each bridge view, as the demo's server renders it
# for a browser (no native_app styles). Changed: the import map and /application.js become
# the bundle, and our script tag comes before it.
python3 - "$work/demo/views" "$out" <<'EOF'
import re, sys
views, out = sys.argv[1], sys.argv[2]
layout = open(views + "/layout.ejs").read()
layout = re.sub(r"\s*<% if \(locals\.native_app\) \{ %>.*?<% \} %>", "", layout, flags=re.S)
layout = re.sub(r'<script type="importmap">.*?</script>\s*<script type="module" src="/application.js"></script>',
                '<script src="/hotwire.js"></script>\n    <script type="module" src="application.bundle.js"></script>',
                layout, flags=re.S)
layout = layout.replace('href="/styles/', 'href="styles/')
layout = layout.replace('<%= locals.page_class || "" %>', "")
pages = {"bridge-form": "Bridge Form", "bridge-menu": "Bridge Menu", "bridge-overflow": "Bridge Overflow"}
for view, title in pages.items():
    body = open("%s/%s.ejs" % (views, view)).read()
    page = layout.replace("<%= title %>", title).replace("<%- body %>", body.strip())
    assert "<%" not in page, view
    open("%s/%s.html" % (out, view), "w").write(page)
    if view == "bridge-form":
        # The library's bridge object made before hotwire.js runs (a classic script before it).
        first = page.replace('<script src="/hotwire.js"></script>',
                             '<script src="bridge-first.js"></script>\n    <script src="/hotwire.js"></script>')
        open("%s/bridge-form-bridge-first.html" % out, "w").write(first)
        # A page that also uses the DSBridge API: dsbridge.js first, both on one session.
        both = page.replace('<script src="/hotwire.js"></script>',
                            '<script src="/dsbridge.js"></script>\n    <script src="/hotwire.js"></script>')
        open("%s/bridge-form-with-dsbridge.html" % out, "w").write(both)
        # No script tag of ours: the test adds hotwire.js once the page has loaded (too late).
        late = page.replace('<script src="/hotwire.js"></script>\n    ', "")
        open("%s/bridge-form-late.html" % out, "w").write(late)
EOF
echo "rebuilt $out"

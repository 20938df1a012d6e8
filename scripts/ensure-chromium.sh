#!/usr/bin/env bash
# Before the browser tests: finds Debian's Chromium (or CHROMIUM_PATH), installs it with apt-get
# when it is missing and this is root, and otherwise says in one line what to run.
set -euo pipefail

if [ -n "${CHROMIUM_PATH:-}" ]; then
  [ -x "$CHROMIUM_PATH" ] && exit 0
  echo "CHROMIUM_PATH=$CHROMIUM_PATH is not an executable file: point it at a Chromium binary, or unset it to use Debian's /usr/bin/chromium." >&2
  exit 1
fi
[ -x /usr/bin/chromium ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "/usr/bin/chromium is missing: installing Debian's chromium with apt-get for the browser tests"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq chromium >/dev/null
  [ -x /usr/bin/chromium ] && exit 0
  echo "apt-get install chromium finished but /usr/bin/chromium is still missing." >&2
  exit 1
fi

echo "The browser tests need Debian's Chromium: run 'sudo apt-get install -y chromium' (or set CHROMIUM_PATH to a Chromium binary), then npm test again." >&2
exit 1

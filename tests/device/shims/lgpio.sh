#!/bin/sh
# lgpio into the system's Python, where Raspberry Pi OS's python3-lgpio puts it; the board's
# venv sees it through --system-site-packages, as on a Pi.
#   lgpio.sh REQUIREMENT
set -eu
site=$(/usr/bin/python3 -c 'import site; print(site.getsitepackages()[0])')
/opt/arena/.venv/bin/python -m pip install -q --no-cache-dir --no-build-isolation \
    --target "$site" "$1"
/usr/bin/python3 -c 'import lgpio'

#!/bin/sh
# deps.sh: checks for the Debian packages tracedb needs and installs the missing ones when run as root
# (non-interactively); otherwise says exactly what to install. Usage: deps.sh build|test|bench|mpi|gpu|gpu-check
# gpu: what make gpu-bundle builds with and tests/gpu/check.sh runs with; gpu-check: the latter alone
# (a machine that runs a bundle built elsewhere)
set -e
need="gcc g++ make libsqlite3-dev libyajl-dev libsimdjson-dev libcjson-dev libcsv-dev zlib1g-dev"  # g++: libstdc++ (the kernel-name demangler) and json_fast.cpp; libsimdjson: the import's fast lane
[ "$1" = test ] && need="$need libcriterion-dev sqlite3 gzip python3-pandas python3-pytest python3-scipy python3-torch clang libclang-rt-dev chromium openmpi-bin libopenmpi-dev valgrind groff-base man-db"  # pytest, scipy, torch (CPU): the Python package's tests; groff, man: the man pages rendered; clang + its runtime: the fuzz targets; valgrind: make valgrind; chromium: the HTML report, rendered; Open MPI: tracedb-mpi's tests
[ "$1" = mpi ] && need="$need openmpi-bin libopenmpi-dev"  # make mpi
[ "$1" = bench ] && need="$need sqlite3 time bc"
gpu_check="python3 gzip binutils"  # check.py (its sqlite3 module is python3's), gzip for the kept databases, c++filt
[ "$1" = gpu ] && need="$need $gpu_check"
[ "$1" = gpu-check ] && need="$gpu_check"
missing=""
for p in $need; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
  echo "tracedb: installing:$missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq $missing >&2
else
  echo "tracedb: missing Debian packages:$missing" >&2
  echo "tracedb: run: sudo apt-get install -y$missing" >&2
  exit 1
fi

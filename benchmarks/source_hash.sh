#!/usr/bin/env bash
# Prints a hash of every file a flitsim wheel is built from (C++/CUDA sources, bindings, the
# Python package, the build files), so that gpu_session.sh uses a wheel built here by
# gpu_wheel.sh only if it was built from exactly the tree the device received (which has no
# .git). Run from the repository root.
find cuda host bindings src CMakeLists.txt pyproject.toml -type f \
  \( -name '*.cu' -o -name '*.cuh' -o -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.py' \
     -o -name '*.txt' -o -name '*.toml' \) -not -path '*/__pycache__/*' |
  LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16

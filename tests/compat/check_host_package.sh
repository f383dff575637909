#!/bin/bash
# A host program built outside the tree, as a Vortex user builds one: the vecadd example's
# main.cpp with Vortex's host flags, through `vxsynth sim flags`, pkg-config, the CMake package
# and an installed vxsynth; each binary runs the example's kernel and must print PASSED!. The
# installed `sim cc` must build kernels from the prefix alone (vortex-rt, divergence plugin).
#   check_host_package.sh BUILD_DIR SOURCE_DIR EXAMPLES_DIR WORK_DIR
set -euo pipefail
build=$1 source=$2 examples=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
cxx=${CXX:-g++}
host_flags=(-std=c++17 -Wall -Wextra -pedantic -Wfatal-errors -O2)
main=$source/vortex-rt/examples/vecadd/main.cpp
kernel=$examples/vecadd/kernel.vxbin
failures=0

run_it() {  # label binary
  local out
  if ! out=$(cd "$work" && "$2" -k "$kernel" -n 333 2>&1) || ! grep -q '^PASSED!' <<<"$out"; then
    echo "FAIL: $1: the program did not pass:"; echo "$out"; failures=$((failures + 1)); return
  fi
  echo "ok: $1"
}

# 1. llvm-config style, from the build tree.
read -r -a flags <<<"$("$build/vxsynth" sim flags --cflags --libs)"
"$cxx" "${host_flags[@]}" -I"$source/vortex-rt/examples/vecadd" "$main" "${flags[@]}" -o "$work/vecadd-flags"
run_it "sim flags" "$work/vecadd-flags"

# 2. pkg-config, from the build tree.
read -r -a flags <<<"$(PKG_CONFIG_PATH=$build/lib/pkgconfig pkg-config --cflags --libs vxsynth-vortex)"
"$cxx" "${host_flags[@]}" -I"$source/vortex-rt/examples/vecadd" "$main" "${flags[@]}" -o "$work/vecadd-pc"
run_it "pkg-config" "$work/vecadd-pc"

# 3. An installed vxsynth: its sim flags name the prefix, and the CMake package there works.
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
read -r -a flags <<<"$("$work/prefix/bin/vxsynth" sim flags --cflags --libs)"
case "${flags[*]}" in
  *"$work/prefix/include/vxsynth"*"$work/prefix/lib/vxsynth"*) ;;
  *) echo "FAIL: the installed vxsynth sim flags do not name the prefix: ${flags[*]}"; failures=$((failures + 1)) ;;
esac
"$cxx" "${host_flags[@]}" -I"$source/vortex-rt/examples/vecadd" "$main" "${flags[@]}" -o "$work/vecadd-installed"
run_it "installed sim flags" "$work/vecadd-installed"

# The installed sim cc builds kernels from the prefix alone (its vortex-rt and divergence
# plugin), with clang and with GCC; the installed host program runs each.
for compiler in clang gcc; do
  out=$work/installed-$compiler/kernel.vxbin
  log=$("$work/prefix/bin/vxsynth" sim cc -v --compiler "$compiler" "$source/vortex-rt/examples/vecadd/kernel.cpp" \
        -I "$source/vortex-rt/examples/vecadd" -o "$out" 2>&1) || { echo "FAIL: installed sim cc ($compiler):"; echo "$log"; failures=$((failures + 1)); continue; }
  if grep -qF -e "$source/vortex-rt/src" -e "$source/vortex-rt/include" -e "$build/vortex-rt/llvm" <<<"$log"; then
    echo "FAIL: installed sim cc ($compiler) used the build or source tree:"; echo "$log"; failures=$((failures + 1))
  fi
  if [ "$compiler" = clang ] && ! grep -q -- "-fpass-plugin=$work/prefix/lib/vxsynth/VortexDivergence.so" <<<"$log"; then
    echo "FAIL: installed sim cc did not load the installed divergence plugin:"; echo "$log"; failures=$((failures + 1))
  fi
  kernel=$out
  run_it "installed sim cc ($compiler) + installed host" "$work/vecadd-installed"
done
kernel=$examples/vecadd/kernel.vxbin

mkdir -p "$work/cmake-project"
cat >"$work/cmake-project/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.20)
project(vecadd_host CXX)
find_package(vxsynth REQUIRED)
add_executable(vecadd "$main")
target_include_directories(vecadd PRIVATE "$source/vortex-rt/examples/vecadd")
target_compile_features(vecadd PRIVATE cxx_std_17)
target_compile_options(vecadd PRIVATE -Wall -Wextra -pedantic -Wfatal-errors)
target_link_libraries(vecadd PRIVATE vxsynth::vortex)
EOF
cmake -S "$work/cmake-project" -B "$work/cmake-build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -Dvxsynth_DIR="$work/prefix/lib/cmake/vxsynth" >"$work/cmake.log"
cmake --build "$work/cmake-build" >>"$work/cmake.log"
run_it "CMake package (installed)" "$work/cmake-build/vecadd"

if [ "$failures" -ne 0 ]; then echo "$failures failure(s)"; exit 1; fi
echo "all host package routes passed"

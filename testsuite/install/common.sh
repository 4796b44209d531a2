# Shared by the install tests (sourced): install the build tree into a
# staging prefix, then move it, so every test also checks that the installed
# tree is relocatable (RPATH $ORIGIN, pkg-config ${pcfiledir}, relocatable
# TallyConfig.cmake).  Sets $tmp (removed at exit) and $prefix.
# usage: install_moved BUILD_DIR
install_moved() {
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  cmake --install "$1" --prefix "$tmp/stage" >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log"; echo "FAIL: cmake --install"; exit 1; }
  mv "$tmp/stage" "$tmp/prefix"
  prefix=$tmp/prefix
}

fail() { echo "FAIL: $*"; exit 1; }

# expect_count OUTPUT: the examples print "perf::TASK-CLOCK <ns>" with ns > 0.
expect_count() {
  echo "$1"
  echo "$1" | grep -q '^perf::TASK-CLOCK [1-9][0-9]*$' || fail "no positive perf::TASK-CLOCK count"
}

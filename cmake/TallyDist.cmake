# TallyDist.cmake - the `dist` target: the release tarball
# tally-<version>.tar.gz of the commit TALLY_DIST_REF (default HEAD; a
# release commit) made by spack/release.py, byte for byte the same on any
# machine and with any git (docs/install.md).  It prints the sha256 for the
# Spack package (spack/spack_repo/tally/packages/tally/package.py).
# Uncommitted changes are not in it; .gitattributes lists what is left out.
find_package(Git QUIET)
if(NOT GIT_FOUND OR NOT EXISTS ${PROJECT_SOURCE_DIR}/.git)
  return()
endif()
set(TALLY_DIST_REF HEAD CACHE STRING "commit the dist target archives")
add_custom_target(dist
  COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/spack/release.py tarball
          --ref ${TALLY_DIST_REF} --out ${PROJECT_BINARY_DIR}
  COMMENT "Release tarball of ${TALLY_DIST_REF} (spack/release.py) and its sha256"
  VERBATIM)

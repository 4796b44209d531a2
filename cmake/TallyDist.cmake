# TallyDist.cmake - the `dist` target: the release tarball
# tally-<version>.tar.gz of the commit TALLY_DIST_REF (default HEAD; the
# release commit or tag) by git archive, which is reproducible: the same
# commit gives the same bytes (the commit id and time are in the archive,
# so another commit gives another sha256).  It prints the sha256 for the
# Spack package (spack/spack_repo/tally/packages/tally/package.py).
# Uncommitted changes are not in it; .gitattributes lists what is left out.
find_package(Git QUIET)
if(NOT GIT_FOUND OR NOT EXISTS ${PROJECT_SOURCE_DIR}/.git)
  return()
endif()
set(TALLY_DIST_REF HEAD CACHE STRING "commit or tag the dist target archives")
set(_tly_dist_name tally-${PROJECT_VERSION})
set(_tly_dist ${PROJECT_BINARY_DIR}/${_tly_dist_name}.tar.gz)
add_custom_target(dist
  COMMAND ${GIT_EXECUTABLE} -C ${PROJECT_SOURCE_DIR} archive --format=tar.gz
          --prefix=${_tly_dist_name}/ -o ${_tly_dist} ${TALLY_DIST_REF}
  COMMAND ${CMAKE_COMMAND} -E sha256sum ${_tly_dist}
  COMMENT "Release tarball ${_tly_dist_name}.tar.gz of ${TALLY_DIST_REF} (and its sha256)"
  VERBATIM)

# Install layout shared by every part of Tally, and the one way a part puts
# a target into the exported CMake package.  Included from the top-level
# CMakeLists.txt before the parts' folders are added.
#
#   bin/                       papi_* utilities, tally-run, tally-report, tally-gpu-avail
#   lib/                       libtally.so (with the PAPIF_* Fortran bindings), libpapi.so,
#                              libtally-preload.so
#   lib/cmake/Tally/           TallyConfig.cmake and the exported targets
#   lib/pkgconfig/             papi.pc, tally.pc
#   include/                   papi.h, papi_types.h, papiStdEventDefs.h, tally.h, tally_gpu.h,
#                              fpapi.h, f77papi.h, f90papi.h, papi.mod (TALLY_INSTALL_FMODDIR)
#   share/tally/               doc/, examples/
#
# TALLY_INSTALL_PAPI_NAMES=OFF leaves out every path that PAPI itself
# installs, so Tally and a real PAPI (Spack's `papi`) can share a prefix or
# an environment view: no libpapi.so, no papi.pc, the headers (papi.h, ...,
# fpapi.h, papi.mod) in include/tally/ and the papi_* utilities in
# libexec/tally/.  Programs then build with `pkg-config tally` (-ltally) or
# find_package(Tally) (Tally::papi).

option(TALLY_INSTALL_PAPI_NAMES
  "Install the PAPI names (libpapi.so, papi.pc, papi_* in bin/, papi.h in include/); OFF: a layout that coexists with PAPI"
  ON)
if(TALLY_INSTALL_PAPI_NAMES)
  set(TALLY_INSTALL_INCDIR "${CMAKE_INSTALL_INCLUDEDIR}")
  set(TALLY_INSTALL_UTILDIR "${CMAKE_INSTALL_BINDIR}")
else()
  set(TALLY_INSTALL_INCDIR "${CMAKE_INSTALL_INCLUDEDIR}/tally")
  set(TALLY_INSTALL_UTILDIR "${CMAKE_INSTALL_LIBEXECDIR}/tally")
endif()

set(TALLY_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/Tally"
  CACHE STRING "Where TallyConfig.cmake is installed (relative to the prefix)")
# Fortran modules go next to fpapi.h, so one -I<prefix>/include serves both.
set(TALLY_INSTALL_FMODDIR "${TALLY_INSTALL_INCDIR}"
  CACHE STRING "Where Fortran module files are installed (relative to the prefix)")
set(TALLY_INSTALL_DATADIR "${CMAKE_INSTALL_DATADIR}/tally"
  CACHE STRING "Where documentation and examples are installed (relative to the prefix)")
mark_as_advanced(TALLY_INSTALL_CMAKEDIR TALLY_INSTALL_FMODDIR TALLY_INSTALL_DATADIR)

# tally_install_targets(<target>... [EXPORT_NAME <name>])
# Installs library or executable targets to lib/ and bin/ and adds them to
# the TallyTargets export set, so find_package(Tally) users see them as
# Tally::<name> (EXPORT_NAME; one target only).  Parts call this instead of
# install(TARGETS ... EXPORT TallyTargets): a target may be in the export set
# only once, and cmake/TallyInstall.cmake adds the well-known targets a part
# left out (tally-preload, the Fortran bindings) itself.
function(tally_install_targets)
  cmake_parse_arguments(A "" "EXPORT_NAME" "" ${ARGN})
  if(A_EXPORT_NAME)
    set_target_properties(${A_UNPARSED_ARGUMENTS} PROPERTIES EXPORT_NAME ${A_EXPORT_NAME})
  endif()
  install(TARGETS ${A_UNPARSED_ARGUMENTS} EXPORT TallyTargets
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  set_property(GLOBAL APPEND PROPERTY TALLY_EXPORTED_TARGETS ${A_UNPARSED_ARGUMENTS})
endfunction()

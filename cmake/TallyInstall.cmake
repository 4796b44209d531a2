# The installed package: the exported CMake targets with TallyConfig.cmake,
# the pkg-config files papi.pc and tally.pc, and share/tally (documentation
# and examples).  Included from the top-level CMakeLists.txt after every part
# has been added, so it sees the targets that exist in this build and
# tolerates the ones that do not.
include(CMakePackageConfigHelpers)

# ---- Targets of the optional parts --------------------------------------
# The Fortran bindings (fortran/) compile the PAPIF_* wrappers into libtally
# and, with TALLY_ENABLE_FORTRAN, install fpapi.h, f77papi.h, f90papi.h and
# papi.mod; Tally::fortran is
# then an interface target: libtally plus the directories of those files.
if(TALLY_ENABLE_FORTRAN AND TARGET tally_fortran_headers AND NOT TARGET tally_fortran)
  add_library(tally_fortran INTERFACE)
  target_link_libraries(tally_fortran INTERFACE tally)
  target_include_directories(tally_fortran INTERFACE $<BUILD_INTERFACE:${TALLY_GEN_DIR}/include>)
  if(TALLY_FORTRAN_MODULE_DIR)
    target_include_directories(tally_fortran INTERFACE $<BUILD_INTERFACE:${TALLY_FORTRAN_MODULE_DIR}>)
  endif()
  add_dependencies(tally_fortran tally_fortran_headers)
  add_library(Tally::fortran ALIAS tally_fortran)
endif()

# A part normally exports its targets with tally_install_targets(); a target
# of a well-known name that a part installed some other way is added to the
# export set here, under its public name.
get_property(_tly_exported GLOBAL PROPERTY TALLY_EXPORTED_TARGETS)
set(_tly_fortran_target "")
set(_tly_parts
  "fortran:tally_fortran;tally-fortran;tallyf"
  "preload:tally-preload;tally_preload")
foreach(_part IN LISTS _tly_parts)
  string(REPLACE ":" ";" _part "${_part}")
  list(POP_FRONT _part _name)
  foreach(_t IN LISTS _part)
    if(NOT TARGET ${_t})
      continue()
    endif()
    get_target_property(_type ${_t} TYPE)
    if(NOT _type MATCHES "^(SHARED|STATIC|MODULE|INTERFACE)_LIBRARY$")
      continue()
    endif()
    if(_t IN_LIST _tly_exported)
      set_target_properties(${_t} PROPERTIES EXPORT_NAME ${_name})
    else()
      tally_install_targets(${_t} EXPORT_NAME ${_name})
    endif()
    if(_name STREQUAL "fortran")
      set(_tly_fortran_target ${_t})
      # Users of Tally::fortran find fpapi.h and the module files.
      target_include_directories(${_t} INTERFACE $<INSTALL_INTERFACE:${TALLY_INSTALL_INCDIR}>)
      if(NOT TALLY_INSTALL_FMODDIR STREQUAL TALLY_INSTALL_INCDIR)
        target_include_directories(${_t} INTERFACE $<INSTALL_INTERFACE:${TALLY_INSTALL_FMODDIR}>)
      endif()
    endif()
    break()
  endforeach()
endforeach()

# ---- CMake package -------------------------------------------------------
install(EXPORT TallyTargets NAMESPACE Tally:: DESTINATION ${TALLY_INSTALL_CMAKEDIR}
  FILE TallyTargets.cmake)

# Features of this build, recorded for users (Tally_HAS_<X> in CMake,
# variables in tally.pc).
set(_tly_features "")
foreach(_f MPI OPENMP HDF5 CUDA FORTRAN)
  if(TALLY_ENABLE_${_f})
    set(TALLY_PKG_HAS_${_f} ON)
    list(APPEND _tly_features ${_f})
  else()
    set(TALLY_PKG_HAS_${_f} OFF)
  endif()
endforeach()
set(TALLY_INSTALL_INCLUDEDIR ${TALLY_INSTALL_INCDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/TallyConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/TallyConfig.cmake
  INSTALL_DESTINATION ${TALLY_INSTALL_CMAKEDIR}
  PATH_VARS TALLY_INSTALL_INCLUDEDIR TALLY_INSTALL_FMODDIR TALLY_INSTALL_DATADIR)
# 0.x releases promise nothing across minor versions.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/TallyConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/TallyConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/TallyConfigVersion.cmake
  DESTINATION ${TALLY_INSTALL_CMAKEDIR})

# ---- pkg-config ----------------------------------------------------------
# The files locate the prefix from their own directory (${pcfiledir}), so
# an installed tree that is moved keeps working.
set(_tly_pcdir "${CMAKE_INSTALL_LIBDIR}/pkgconfig")
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(TALLY_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH _rel "/root/${_tly_pcdir}" "/root")
  string(REGEX REPLACE "/$" "" _rel "${_rel}")
  set(TALLY_PC_PREFIX "\${pcfiledir}/${_rel}")
endif()
foreach(_d LIBDIR:CMAKE_INSTALL_LIBDIR INCLUDEDIR:TALLY_INSTALL_INCDIR)
  string(REPLACE ":" ";" _d "${_d}")
  list(GET _d 0 _n)
  list(GET _d 1 _v)
  if(IS_ABSOLUTE "${${_v}}")
    set(TALLY_PC_${_n} "${${_v}}")
  else()
    set(TALLY_PC_${_n} "\${prefix}/${${_v}}")
  endif()
endforeach()
set(TALLY_PC_FMODDIR "\${prefix}/${TALLY_INSTALL_FMODDIR}")
set(TALLY_PC_PAPI_VERSION 7.1.0)   # the PAPI API level of papi.h (PAPI_VERSION)
string(REPLACE ";" " " TALLY_PC_FEATURES "${_tly_features}")
# Fortran programs link the bindings' library too when it is a separate one.
set(TALLY_PC_FORTRAN_LIBS "")
set(TALLY_PC_FORTRAN_FLAGS "")
if(_tly_fortran_target AND NOT TALLY_INSTALL_FMODDIR STREQUAL TALLY_INSTALL_INCDIR)
  set(TALLY_PC_FORTRAN_FLAGS "-I\${fmoddir}")
endif()
if(_tly_fortran_target)
  get_target_property(_type ${_tly_fortran_target} TYPE)
  if(NOT _type STREQUAL "INTERFACE_LIBRARY")
    set(TALLY_PC_FORTRAN_LIBS "-l$<TARGET_LINKER_FILE_BASE_NAME:${_tly_fortran_target}>")
  endif()
endif()
set(TALLY_PC_PRELOAD "")
if(TARGET tally-preload)
  set(TALLY_PC_PRELOAD "\${libdir}/$<TARGET_FILE_NAME:tally-preload>")
endif()
# papi.pc is a PAPI name: left out with TALLY_INSTALL_PAPI_NAMES=OFF.
set(_tly_pcs tally)
if(TALLY_INSTALL_PAPI_NAMES)
  list(PREPEND _tly_pcs papi)
endif()
foreach(_pc IN LISTS _tly_pcs)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${_pc}.pc.in ${PROJECT_BINARY_DIR}/cmake/${_pc}.pc.gen @ONLY)
  file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/cmake/${_pc}.pc
    INPUT ${PROJECT_BINARY_DIR}/cmake/${_pc}.pc.gen)
  install(FILES ${PROJECT_BINARY_DIR}/cmake/${_pc}.pc DESTINATION ${_tly_pcdir})
endforeach()

# ---- share/tally -----------------------------------------------------------
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${TALLY_INSTALL_DATADIR}/doc)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${TALLY_INSTALL_DATADIR}/doc
  FILES_MATCHING PATTERN "*.md" PATTERN "*.txt" PATTERN "*.json" PATTERN "*.yaml")
if(EXISTS ${PROJECT_SOURCE_DIR}/docs/examples)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/examples/ DESTINATION ${TALLY_INSTALL_DATADIR}/examples)
endif()

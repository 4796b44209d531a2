# TallyFindLibomp.cmake - LLVM's OpenMP runtime for the OMPT tool and for GCC
# OpenMP programs run on libomp when asked (TALLY_LIBOMP=auto;
# wrappers/CMakeLists.txt).
#
# Sets TALLY_OMPT_INCLUDE (the directory of omp-tools.h) and TALLY_LIBOMP
# (libomp.so).  Either may be given on the command line.  Otherwise, in this
# order: LLVM_OPENMP_ROOT or OpenMP_ROOT (variable or environment; Spack's
# package passes its llvm-openmp), CMAKE_PREFIX_PATH, the LLVM that
# llvm-config names, then any /usr/lib/llvm-<N> of the distribution, newest
# first.  Nothing here is tied to one distribution's LLVM version.

set(_tly_omp_roots "")
foreach(_v LLVM_OPENMP_ROOT OpenMP_ROOT)
  if(DEFINED ${_v})
    list(APPEND _tly_omp_roots ${${_v}})
  endif()
  if(DEFINED ENV{${_v}})
    list(APPEND _tly_omp_roots $ENV{${_v}})
  endif()
endforeach()

set(_tly_llvm_dirs "")
find_program(TALLY_LLVM_CONFIG NAMES llvm-config)
mark_as_advanced(TALLY_LLVM_CONFIG)
if(TALLY_LLVM_CONFIG)
  execute_process(COMMAND ${TALLY_LLVM_CONFIG} --prefix OUTPUT_VARIABLE _tly_llvm_prefix
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _tly_rc)
  if(_tly_rc EQUAL 0 AND _tly_llvm_prefix)
    list(APPEND _tly_llvm_dirs ${_tly_llvm_prefix})
  endif()
endif()
file(GLOB _tly_distro_llvm LIST_DIRECTORIES true /usr/lib/llvm-*)
list(SORT _tly_distro_llvm COMPARE NATURAL ORDER DESCENDING)
list(APPEND _tly_llvm_dirs ${_tly_distro_llvm})

# clang's resource directory holds omp-tools.h in a distribution's LLVM.
set(_tly_ompt_paths "")
foreach(_d ${_tly_llvm_dirs})
  file(GLOB _tly_res LIST_DIRECTORIES true ${_d}/lib/clang/*/include)
  list(SORT _tly_res COMPARE NATURAL ORDER DESCENDING)
  list(APPEND _tly_ompt_paths ${_d}/include ${_tly_res})
endforeach()

find_path(TALLY_OMPT_INCLUDE omp-tools.h
  HINTS ${_tly_omp_roots}
  PATH_SUFFIXES include
  PATHS ${_tly_ompt_paths}
  DOC "directory of LLVM's omp-tools.h (OMPT)")

# libomp next to the header first, so both come from one runtime.
set(_tly_omp_libhints "")
if(TALLY_OMPT_INCLUDE)
  get_filename_component(_tly_inc_parent ${TALLY_OMPT_INCLUDE} DIRECTORY)
  list(APPEND _tly_omp_libhints ${_tly_inc_parent}/lib ${_tly_inc_parent}/lib64)
endif()
set(_tly_llvm_libs "")
foreach(_d ${_tly_llvm_dirs})
  list(APPEND _tly_llvm_libs ${_d}/lib)
endforeach()
find_library(TALLY_LIBOMP NAMES omp libomp.so.5
  HINTS ${_tly_omp_roots} ${_tly_omp_libhints}
  PATH_SUFFIXES lib lib64
  PATHS ${_tly_llvm_libs}
  DOC "LLVM's libomp (libomp.so)")

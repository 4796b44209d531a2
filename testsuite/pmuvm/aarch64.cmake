# Cross-compile Tally and its tests for the arm64 PMU test bed guest.
#   cmake -S . -B build-pmuvm -DCMAKE_TOOLCHAIN_FILE=testsuite/pmuvm/aarch64.cmake \
#         -DTALLY_PMUVM_GUEST=<dir printed by testsuite/pmuvm/setup.sh>
# The compiler's own glibc (libc6-dev-arm64-cross) is used; libpfm4 and
# PAPI 7.0 come from the guest's root file system through the symlink
# farm setup.sh makes (cross/pfm, cross/papi), so nothing else of the
# rootfs can shadow the cross glibc.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)

if(NOT TALLY_PMUVM_GUEST AND DEFINED ENV{TALLY_PMUVM_GUEST})
  set(TALLY_PMUVM_GUEST $ENV{TALLY_PMUVM_GUEST})
endif()
if(NOT TALLY_PMUVM_GUEST OR NOT EXISTS ${TALLY_PMUVM_GUEST}/cross/pfm)
  message(FATAL_ERROR "aarch64.cmake: set TALLY_PMUVM_GUEST to the guest directory testsuite/pmuvm/setup.sh prints")
endif()
set(TALLY_PMUVM_GUEST ${TALLY_PMUVM_GUEST} CACHE PATH "Guest directory made by testsuite/pmuvm/setup.sh")
# try_compile projects get the variable too.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES TALLY_PMUVM_GUEST)

set(PFM_INCLUDE_DIR ${TALLY_PMUVM_GUEST}/cross/pfm/include CACHE PATH "" FORCE)
set(PFM_LIBRARY ${TALLY_PMUVM_GUEST}/cross/pfm/lib/libpfm.so CACHE FILEPATH "" FORCE)
set(TALLY_PMUVM_PAPI_INCLUDE ${TALLY_PMUVM_GUEST}/cross/papi/include)
set(TALLY_PMUVM_PAPI_LIBRARY ${TALLY_PMUVM_GUEST}/cross/papi/lib/libpapi.so)
# Programs linking libtally need libpfm.so.4 found at link time.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,-rpath-link,${TALLY_PMUVM_GUEST}/cross/pfm/lib")
# libpapi.so.7 needs libraries only the rootfs has (libpfm, libsde...).
set(TALLY_PMUVM_RPATH_LINK ${TALLY_PMUVM_GUEST}/rootfs/usr/lib/aarch64-linux-gnu)

# Only the C library and the guest's libraries: no host MPI, HDF5, CUDA
# or Fortran in the guest.
set(TALLY_ENABLE_MPI OFF CACHE BOOL "" FORCE)
set(TALLY_ENABLE_OPENMP OFF CACHE BOOL "" FORCE)
set(TALLY_ENABLE_HDF5 OFF CACHE BOOL "" FORCE)
set(TALLY_ENABLE_CUDA OFF CACHE BOOL "" FORCE)
set(TALLY_ENABLE_FORTRAN OFF CACHE BOOL "" FORCE)
set(CMAKE_DISABLE_FIND_PACKAGE_MPI ON)
set(CMAKE_DISABLE_FIND_PACKAGE_HDF5 ON)
set(CMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit ON)
set(CMAKE_DISABLE_FIND_PACKAGE_OpenMP ON)

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu ${TALLY_PMUVM_GUEST}/cross)

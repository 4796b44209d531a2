# Cross-compile the whole tree, the runtime (wrappers/: libtally-preload,
# libtally-h5, tally-run) included, for the arm64 PMU test bed guest:
#   cmake -S . -B build-pmuvm-rt -DCMAKE_TOOLCHAIN_FILE=testsuite/pmuvm/aarch64-runtime.cmake \
#         -DTALLY_PMUVM_SYSROOT=<dir printed by testsuite/pmuvm/setup.sh sysroot>
# Everything is built against the arm64 sysroot setup.sh unpacks (Debian's
# glibc, libpfm4, Open MPI, parallel HDF5, libdw): CMAKE_SYSROOT for the
# compiler, pkg-config re-rooted there, and FindMPI given the library and
# header directly, since its compiler wrapper (mpicc) is an arm64 program.
# OpenMP, Fortran, CUDA, NVTX and OTF2 are off.  aarch64.cmake is the
# library-only build the `pmu` tests use.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)

if(NOT TALLY_PMUVM_SYSROOT AND DEFINED ENV{TALLY_PMUVM_SYSROOT})
  set(TALLY_PMUVM_SYSROOT $ENV{TALLY_PMUVM_SYSROOT})
endif()
if(NOT TALLY_PMUVM_SYSROOT OR NOT EXISTS ${TALLY_PMUVM_SYSROOT}/usr/include/hdf5/openmpi/hdf5.h)
  message(FATAL_ERROR "aarch64-runtime.cmake: set TALLY_PMUVM_SYSROOT to the directory "
                      "`testsuite/pmuvm/setup.sh sysroot` prints")
endif()
set(TALLY_PMUVM_SYSROOT ${TALLY_PMUVM_SYSROOT} CACHE PATH "arm64 sysroot made by testsuite/pmuvm/setup.sh sysroot")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES TALLY_PMUVM_SYSROOT)

set(CMAKE_SYSROOT ${TALLY_PMUVM_SYSROOT})
set(CMAKE_FIND_ROOT_PATH ${TALLY_PMUVM_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

set(_ml ${TALLY_PMUVM_SYSROOT}/usr/lib/aarch64-linux-gnu)
# pkg-config (hdf5-openmpi, libdw) reads the sysroot's .pc files only and
# prefixes their paths with it.
set(ENV{PKG_CONFIG_SYSROOT_DIR} ${TALLY_PMUVM_SYSROOT})
set(ENV{PKG_CONFIG_LIBDIR} ${_ml}/pkgconfig:${TALLY_PMUVM_SYSROOT}/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
# Libraries' own dependencies (libmpi -> libopen-rte -> ...) resolved at
# link time in the sysroot.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,-rpath-link,${_ml}:${_ml}/openmpi/lib:${TALLY_PMUVM_SYSROOT}/lib/aarch64-linux-gnu")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "${CMAKE_EXE_LINKER_FLAGS_INIT}")

# Open MPI without its wrapper: FindMPI takes the header directory and the
# library as given and only checks that a program builds with them.
set(MPI_SKIP_COMPILER_WRAPPER TRUE)
set(MPI_ASSUME_NO_BUILTIN_MPI TRUE)
set(MPI_C_HEADER_DIR ${_ml}/openmpi/include CACHE PATH "" FORCE)
set(MPI_C_COMPILER_INCLUDE_DIRS ${_ml}/openmpi/include CACHE STRING "" FORCE)
set(MPI_C_LIB_NAMES mpi CACHE STRING "" FORCE)
set(MPI_mpi_LIBRARY ${_ml}/openmpi/lib/libmpi.so CACHE FILEPATH "" FORCE)
# mpirun is not run here (the guest's tests are serial programs).
set(MPIEXEC_EXECUTABLE "" CACHE FILEPATH "" FORCE)
set(TALLY_ENABLE_MPI ON CACHE BOOL "" FORCE)
# HDF5 through pkg_check_modules(hdf5-openmpi) in wrappers/CMakeLists.txt;
# FindHDF5 would run the host's h5cc.
set(TALLY_ENABLE_HDF5 ON CACHE BOOL "" FORCE)
set(CMAKE_DISABLE_FIND_PACKAGE_HDF5 ON)

set(TALLY_ENABLE_OPENMP OFF CACHE BOOL "" FORCE)
set(TALLY_ENABLE_CUDA OFF CACHE BOOL "" FORCE)
set(TALLY_ENABLE_FORTRAN OFF CACHE BOOL "" FORCE)
set(TALLY_ENABLE_NVTX OFF CACHE BOOL "" FORCE)
set(TALLY_ENABLE_OTF2 OFF CACHE BOOL "" FORCE)
set(CMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit ON)
set(CMAKE_DISABLE_FIND_PACKAGE_OpenMP ON)

# Spack package for Tally.  See docs/install.md for how to use it.
#
# The package repository uses Spack's package API v1 layout, so Spack 1.x
# provides the build systems (CMakePackage) through `spack.package` here and
# Spack 0.2x does the same natively.

import os
import re

from spack.package import *


class Tally(CMakePackage):
    """Tally is an MPI/OpenMP/GPU-aware HPC measurement library implementing
    the PAPI C API (libpapi.so, papi.h, the PAPI utilities) over Linux
    perf_event and libpfm4, with a preloaded runtime (tally-run) that writes
    one HDF5 file per job."""

    homepage = "https://example.org/tally"
    # Placeholder: point Spack at your clone of Tally with
    #   packages: {tally: {package_attributes: {git: <url>}}}   (packages.yaml)
    # or `spack develop tally@main` in an environment; docs/install.md.
    git = "https://example.org/tally/tally.git"

    version("main", branch="main")

    variant("mpi", default=True, description="MPI support: PMPI wrappers of the runtime")
    variant("openmp", default=True, description="OpenMP support through an OMPT tool")
    variant("hdf5", default=True, description="HDF5 writer of the runtime (one file per job)")
    variant("fortran", default=True, description="Fortran headers (fpapi.h...) and the papi module")
    variant(
        "cuda",
        default=False,
        description="CUDA/CUPTI component (libcuda and libcupti are loaded at run time)",
    )
    variant("analysis", default=True, description="Run dependencies of the analysis tools")

    requires("platform=linux", msg="Tally counts through Linux perf_event")

    depends_on("c", type="build")
    depends_on("fortran", type="build", when="+fortran")

    depends_on("cmake@3.20:", type="build")
    # The build generates the preset tables and wrappers with Python.
    depends_on("python@3.6:", type="build")

    depends_on("libpfm4")
    depends_on("mpi", when="+mpi")
    depends_on("hdf5", when="+hdf5")
    depends_on("hdf5+mpi", when="+hdf5+mpi")
    depends_on("cuda", when="+cuda")
    # An OpenMP runtime that implements OMPT (omp-tools.h, libomp).
    depends_on("llvm-openmp", when="+openmp")
    # Source names (function, file:line) of OpenMP regions and MPI call sites
    # in the runtime; optional in CMake (TALLY_ENABLE_LIBDW), wanted here.
    depends_on("elfutils", when="+mpi")

    with when("+analysis"):
        depends_on("python@3.8:", type=("build", "run"))
        depends_on("py-h5py", type="run")
        depends_on("py-pandas", type="run")
        depends_on("py-matplotlib", type="run")

    # Installed programs and the test programs built against this package.
    test_requires_compiler = True

    def cmake_args(self):
        spec = self.spec
        args = [
            self.define_from_variant("TALLY_ENABLE_MPI", "mpi"),
            self.define_from_variant("TALLY_ENABLE_OPENMP", "openmp"),
            self.define_from_variant("TALLY_ENABLE_HDF5", "hdf5"),
            self.define_from_variant("TALLY_ENABLE_FORTRAN", "fortran"),
            self.define_from_variant("TALLY_ENABLE_CUDA", "cuda"),
            self.define("TALLY_BUILD_TESTS", self.run_tests),
            self.define("TALLY_WERROR", False),
        ]
        # libpfm4 is found by CMake through CMAKE_PREFIX_PATH (its .libs
        # query fails for an external in /usr).
        if spec.satisfies("+mpi"):
            args.append(self.define("MPI_C_COMPILER", spec["mpi"].mpicc))
        if spec.satisfies("+cuda"):
            args.append(self.define("CUDAToolkit_ROOT", spec["cuda"].prefix))
        if spec.satisfies("+hdf5"):
            args.append(self.define("HDF5_ROOT", spec["hdf5"].prefix))
        if spec.satisfies("+analysis"):
            # tally-report runs with the Python that has h5py, pandas, matplotlib.
            args.append(self.define("TALLY_REPORT_PYTHON", spec["python"].command.path))
        return args

    # ---- stand-alone tests: spack test run tally ----------------------------

    def _compiler(self, lang, attr, env_var):
        """The compiler Tally was built with: a compiler node's path in
        Spack 1.x, the CC/FC that test_requires_compiler sets in Spack 0.2x."""
        if lang in self.spec:
            return getattr(self.spec[lang].package, attr)
        return os.environ[env_var]

    def _examples(self):
        return join_path(self.prefix.share.tally, "examples")

    def _check_count(self, out, what):
        assert re.search(r"^perf::TASK-CLOCK [1-9][0-9]*$", out, re.M), (
            f"{what} counted no perf::TASK-CLOCK time:\n{out}"
        )

    def test_papi_avail(self):
        """papi_avail runs from the prefix and reports the PAPI version"""
        papi_avail = which(self.prefix.bin.papi_avail)
        out = papi_avail(output=str.split, error=str.split)
        assert re.search(r"^PAPI version\s*:\s*7\.", out, re.M), out

    def test_papi_component_avail(self):
        """papi_component_avail lists the perf_event component"""
        exe = which(self.prefix.bin.papi_component_avail)
        out = exe(output=str.split, error=str.split)
        assert "perf_event" in out, out

    def test_count_c(self):
        """a C program linked with -lpapi counts perf::TASK-CLOCK"""
        src = join_path(self._examples(), "c", "count_task_clock.c")
        cc = which(self._compiler("c", "cc", "CC"))
        cc(
            "-std=c11",
            f"-I{self.prefix.include}",
            "-o",
            "count_c",
            src,
            f"-L{self.prefix.lib}",
            "-lpapi",
            f"-Wl,-rpath,{self.prefix.lib}",
        )
        out = Executable("./count_c")(output=str.split, error=str.split)
        self._check_count(out, "count_c")

    def test_count_fortran(self):
        """a Fortran program using fpapi.h and PAPIF_* counts perf::TASK-CLOCK"""
        if not self.spec.satisfies("+fortran"):
            raise SkipTest("built without +fortran")
        src = join_path(self._examples(), "fortran", "count_task_clock.F90")
        fc = which(self._compiler("fortran", "fortran", "FC"))
        fc(
            f"-I{self.prefix.include}",
            "-o",
            "count_f",
            src,
            f"-L{self.prefix.lib}",
            "-lpapi",
            f"-Wl,-rpath,{self.prefix.lib}",
        )
        out = Executable("./count_f")(output=str.split, error=str.split)
        self._check_count(out, "count_f")

    def test_cmake_package(self):
        """a CMake project using find_package(Tally) and Tally::papi counts"""
        cmake = self.spec["cmake"].command
        cmake(
            "-S",
            join_path(self._examples(), "cmake"),
            "-B",
            "cmake-build",
            f"-DCMAKE_PREFIX_PATH={self.prefix}",
            f"-DCMAKE_C_COMPILER={self._compiler('c', 'cc', 'CC')}",
            "-DWITH_FORTRAN=OFF",
        )
        cmake("--build", "cmake-build")
        out = Executable(join_path("cmake-build", "count_task_clock"))(
            output=str.split, error=str.split
        )
        self._check_count(out, "the find_package(Tally) example")
